public import Masthead
import MastheadClock
import MastheadFormats

/// The `masthead` command: one list of subcommands, each parsing its arguments, then running.
public enum MastheadTool {
    /// Every command, in the order the help lists them: the one list the help and the choice of
    /// the command to run both come from.
    static let commands: [any MastheadCommand.Type] = [
        CheckCommand.self, AuditCommand.self, ImportCommand.self, TimelineCommand.self, GenerateCommand.self, ServeCommand.self, RefreshCommand.self,
        MigrateCommand.self, GrantsCommand.self,
    ]

    /// The program and its commands' specs (those of ``commands``, in order), for the help and
    /// for finding the command to run.
    static let spec = ToolSpec(
        program: "masthead", about: "decide which magazine issues App Store subscribers may read, and why.",
        commands: commands.map { $0.spec },
        footer: """
            Run 'masthead help <command>' or 'masthead <command> --help' for a command's options,
            'masthead --version' for the version.
            Exit status: 0 success, 1 invalid input data, 2 discrepancies found (audit --fail-on-discrepancy),
            64 usage error, 66 unreadable input, 73 unwritable output, 75 cannot listen now (serve: retry later),
            78 invalid service configuration.
            """)

    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    /// - Parameters:
    ///   - now: the default as-of instant; nil reads the system clock.
    ///   - output, errors: file descriptors for standard output and standard error.
    public static func run(_ arguments: [String], now: Instant? = nil, output: Int32 = 1, errors: Int32 = 2) -> Int32 {
        let out = OutputFile(descriptor: output, name: "standard output")
        let err = OutputFile(descriptor: errors, name: "standard error")
        let now = now ?? SystemClock.now()
        defer {
            try? out.flush()
            try? err.flush()
        }
        do throws(CLIError) {
            switch try spec.request(arguments) {
            case .print(let text):
                try out.write(text)
                return 0
            case .run(_, let position, let rest):
                return try commands[position].parseAndRun(rest, now: now, output: out, errors: err)
            }
        } catch {
            try? out.flush()
            try? err.write("masthead: \(error)\n")
            return error.exitStatus
        }
    }
}
