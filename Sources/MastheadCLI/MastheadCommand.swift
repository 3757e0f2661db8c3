import Masthead

/// A command of `masthead`, declared once as a type: its ``spec`` (name, help, options), how it
/// reads its parsed arguments, and how it runs. ``MastheadTool/commands`` lists the types; the
/// program's help and the choice of what to run both come from that one list, so a command
/// cannot be listed without being runnable. The list is shared, so the types (not their values)
/// must be safe to share: `SendableMetatype`.
protocol MastheadCommand: SendableMetatype {
    /// The command's name, help and options: what the parser accepts and the help shows.
    static var spec: CommandSpec { get }
    /// Whether SIGINT or SIGTERM, while the command runs, removes the temporary output files it
    /// is writing before the process stops (``TemporaryFiles/removedOnStopSignals(_:)``).
    static var removesTemporaryFilesOnStopSignals: Bool { get }
    /// Reads the arguments the parser accepted against ``spec``; `now` is the default as-of instant.
    init(_ arguments: Arguments, now: Instant) throws(CLIError)
    /// Runs the command and answers its exit status.
    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32
}

extension MastheadCommand {
    static var removesTemporaryFilesOnStopSignals: Bool { false }

    /// Parses `arguments` (those after the command's name), reads them and runs the command,
    /// within ``TemporaryFiles/removedOnStopSignals(_:)`` when the command asks for it.
    static func parseAndRun(_ arguments: [String], now: Instant, output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        func parseThenRun() throws(CLIError) -> Int32 { try Self(Arguments(arguments, spec: spec), now: now).run(output: output, errors: errors) }
        guard removesTemporaryFilesOnStopSignals else { return try parseThenRun() }
        return try TemporaryFiles.removedOnStopSignals { () throws(CLIError) in try parseThenRun() }
    }
}
