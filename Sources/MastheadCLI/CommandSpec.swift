/// One command's declaration: its name, what it does and its options. The parser accepts exactly
/// these options (``Arguments``) and the help is written from them, so the two cannot disagree.
package struct CommandSpec: Sendable {
    /// The program the command belongs to, as its messages name it: `masthead`.
    package let program: String
    /// The command's name: `audit`.
    package let name: String
    /// One line for the program's list of commands.
    package let summary: String
    /// What the command does, in the help between the usage line and the options.
    package let description: String
    /// The words the command takes that are not options, in order, as the usage line writes them
    /// (`import FILE`); empty for most commands.
    package let operands: [String]
    /// The options, in the order the help lists them.
    package let options: [OptionSpec]
    /// Groups of options of which exactly one must be given (`--receipts` or `--database`).
    package let alternatives: [[String]]
    /// Text the help shows after the options, or empty.
    package let epilogue: String

    /// Declares a command.
    package init(
        program: String = "masthead", name: String, summary: String, description: String, operands: [String] = [], options: [OptionSpec],
        alternatives: [[String]] = [], epilogue: String = ""
    ) {
        self.program = program
        self.name = name
        self.summary = summary
        self.description = description
        self.operands = operands
        self.options = options
        self.alternatives = alternatives
        self.epilogue = epilogue
    }

    /// The option called `name`, if the command has one.
    package func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// Where a usage message sends the reader: `(see 'masthead audit --help')`.
    var seeHelp: String { "(see '\(program) \(name) --help')" }

    /// The usage line: the required options in order, each group of alternatives where its first
    /// member is declared, then `[options]` when there are others.
    package var usage: String {
        var parts = ["Usage: \(program) \(name)"] + operands
        for option in options {
            if option.required {
                parts.append(option.synopsis)
            } else if let group = alternatives.first(where: { $0.first == option.name }) {
                let synopses = group.compactMap { self.option($0)?.synopsis }
                parts.append("(" + synopses.joined(separator: " | ") + ")")
            }
        }
        let grouped = Set(alternatives.joined())
        if options.contains(where: { !$0.required && !grouped.contains($0.name) }) { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The whole `--help` text: usage, description, options (and `-h, --help`), epilogue.
    package var help: String {
        // The option column is as wide as the longest option, and at least 21 characters.
        let width = max(21, options.map(\.synopsis.count).max() ?? 0)
        var text = usage + "\n\n" + description + "\n\nOptions:\n"
        func row(_ label: String, _ help: String) {
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false).flatMap { Self.wrap($0, to: Self.pageWidth - width - 4) }
            for (index, line) in lines.enumerated() {
                let left = index == 0 ? label : ""
                text += "  " + left + String(repeating: " ", count: width - left.count) + "  " + line + "\n"
            }
        }
        for option in options { row(option.synopsis, option.help) }
        row("-h, --help", "Show this help.")
        if !epilogue.isEmpty { text += "\n" + epilogue + "\n" }
        return text
    }

    /// The columns a help line may take; a longer option help is wrapped at spaces.
    static let pageWidth = 110

    /// `line` cut at spaces into lines of at most `width` characters (a longer word stays whole).
    static func wrap(_ line: Substring, to width: Int) -> [Substring] {
        var lines: [Substring] = []
        var rest = line
        while rest.count > width, let space = rest.prefix(width + 1).lastIndex(of: " ") {
            lines.append(rest[..<space])
            rest = rest[rest.index(after: space)...]
        }
        return lines + [rest]
    }
}
