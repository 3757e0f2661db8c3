public import Masthead
import MastheadClock
import MastheadFormats

/// The `masthead` command: a table of subcommands, each parsing its arguments, then running.
public enum MastheadTool {
    /// The program and its commands, for the help and for finding the command to run.
    static let spec = ToolSpec(
        program: "masthead", about: "decide which magazine issues App Store subscribers may read, and why.",
        commands: [
            CheckCommand.spec, AuditCommand.spec, ImportCommand.spec, TimelineCommand.spec, GenerateCommand.spec, ServeCommand.spec, RefreshCommand.spec,
            MigrateCommand.spec,
        ],
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
            case .run(let command, let rest):
                switch command.name {
                case CheckCommand.spec.name: return try CheckCommand(rest, now: now).run(output: out)
                // Stopped by SIGINT or SIGTERM, these leave no temporary output file behind.
                case AuditCommand.spec.name:
                    return try TemporaryFiles.removedOnStopSignals { () throws(CLIError) in try AuditCommand(rest, now: now).run(output: out, errors: err) }
                case ImportCommand.spec.name: return try ImportCommand(rest).run(output: out, errors: err)
                case TimelineCommand.spec.name: return try TimelineCommand(rest, now: now).run(output: out)
                case GenerateCommand.spec.name:
                    return try TemporaryFiles.removedOnStopSignals { () throws(CLIError) in try GenerateCommand(rest, now: now).run(output: out) }
                case ServeCommand.spec.name: return try ServeCommand(rest).run(output: out, errors: err)
                case RefreshCommand.spec.name: return try RefreshCommand(rest).run(output: out)
                case MigrateCommand.spec.name: return try MigrateCommand(rest).run(output: out)
                default: preconditionFailure("no runner for the command \(command.name)")
                }
            }
        } catch {
            try? out.flush()
            try? err.write("masthead: \(error)\n")
            return error.exitStatus
        }
    }
}
