import MastheadAudit

/// Where `masthead audit` sends an audit's results: the output file (or standard output), the
/// rejected lines to standard error, and a progress line when standard error is a terminal.
final class AuditOutput: AuditSink {
    let results: OutputFile
    let errors: OutputFile
    private var progressLine: AuditProgress?

    /// Writes results to `results` and messages to `errors`, with a progress line when `errors` is a terminal.
    init(results: OutputFile, errors: OutputFile) {
        self.results = results
        self.errors = errors
        progressLine = errors.isTerminal ? AuditProgress() : nil
    }

    var showsProgress: Bool { progressLine != nil }

    func write(_ bytes: [UInt8]) throws { try results.write(bytes) }

    func reject(_ message: String) throws { try errors.write(message + "\n") }

    func progress(_ position: AuditPosition) throws { try progressLine?.update(position, on: errors) }

    /// Erases the progress line, if one was drawn.
    func finishProgress() throws(CLIError) { try progressLine?.finish(on: errors) }
}
