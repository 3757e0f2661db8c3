/// Why an audit (or an import of receipts) stopped before its end, with the file and what was wrong.
///
/// Lines that cannot be used do not stop an audit: they are reported through the sink and
/// counted in the summary.
public enum AuditError: Error, CustomStringConvertible {
    /// A file or database could not be opened or read.
    case cannotRead(path: String, reason: String)
    /// A line of the grants file cannot be read; nothing is audited then.
    case invalidGrants(path: String, line: Int, reason: String)
    /// A line (`FILE:LINE`) carries signed data but no app is configured to check it against;
    /// nothing after it is audited.
    case signedDataWithoutApp(location: String)
    /// The sink could not take the results or messages: what it threw.
    case sink(any Error)

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidGrants(let path, let line, let reason): "\(path):\(line): \(reason)"
        case .signedDataWithoutApp(let location): "\(location): signed data, but no app (bundle id) is configured to check it against"
        case .sink(let error): "\(error)"
        }
    }
}
