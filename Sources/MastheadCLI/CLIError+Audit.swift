import MastheadAudit

extension CLIError {
    /// An audit's (or an import's) failure as the command's: unreadable input (66), an unreadable
    /// grants line (1), signed data without an app to check it against (64), or what writing the
    /// output threw.
    init(_ error: AuditError) {
        switch error {
        case .cannotRead(let path, let reason): self = .cannotRead(path: path, reason: reason)
        case .invalidGrants: self = .invalidData(error.description)
        case .signedDataWithoutApp(let location): self = TrustOptions.missingApp(command: AuditCommand.spec.name, at: location)
        case .sink(let failure): self = failure as? CLIError ?? .cannotWrite(path: "the output", reason: "\(failure)")
        }
    }
}
