import Masthead
import MastheadFormats

/// A program's declaration: its commands and the text around their list. It answers the
/// program-level requests (`--help`, `help COMMAND`, `--version`) and finds the command to run.
package struct ToolSpec: Sendable {
    /// The program's name: `masthead`.
    package let program: String
    /// The first line of the help: what the program is for.
    package let about: String
    /// The commands, in the order the help lists them.
    package let commands: [CommandSpec]
    /// Text the help shows after the list of commands.
    package let footer: String

    /// Declares a program.
    package init(program: String, about: String, commands: [CommandSpec], footer: String) {
        self.program = program
        self.about = about
        self.commands = commands
        self.footer = footer
    }

    /// What the command line asks for.
    package enum Request {
        /// Print this text (a help) and succeed.
        case print(String)
        /// Run `command`, the one at `position` in ``ToolSpec/commands``, with `arguments` (those
        /// after its name).
        case run(CommandSpec, position: Int, arguments: [String])
    }

    /// The request `arguments` (without the program name) make: no arguments, `--help`, `-h` or
    /// `help` print the program's help; `help COMMAND` and `COMMAND --help` print the command's;
    /// `--version` and `version` print the version. An unknown command is a usage error naming
    /// the nearest known one.
    package func request(_ arguments: [String]) throws(CLIError) -> Request {
        guard let name = arguments.first else { return .print(help) }
        let rest = Array(arguments.dropFirst())
        switch name {
        case "--help", "-h", "help":
            guard let topic = rest.first else { return .print(help) }
            guard rest.count == 1 else { throw CLIError.usage("help: name one command (see '\(program) --help')") }
            return .print(commands[try position(topic)].help)
        case "--version", "version":
            return .print("\(program) \(MastheadVersion.current)\n")
        default:
            let position = try position(name)
            let command = commands[position]
            if rest.contains("--help") || rest.contains("-h") { return .print(command.help) }
            return .run(command, position: position, arguments: rest)
        }
    }

    /// Where the command called `name` is in ``commands``; a usage error suggesting the nearest
    /// one when there is none.
    private func position(_ name: String) throws(CLIError) -> Int {
        if let position = commands.firstIndex(where: { $0.name == name }) { return position }
        let suggestion = Spelling.suggestion(for: name, among: commands.map(\.name) + ["help", "version", "--help", "--version"])
        throw CLIError.usage("unknown command '\(name)'\(suggestion) (see '\(program) --help')")
    }

    /// The program's help: what it is for, the usage line, the commands and the footer.
    package var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        var text = "\(program): \(about)\n\nUsage: \(program) <command> [options]\n\nCommands:\n"
        for command in commands {
            text += "  " + command.name + String(repeating: " ", count: width - command.name.count) + "  " + command.summary + "\n"
        }
        return text + "\n" + footer + "\n"
    }
}
