/// Where an audit's results, messages and progress go while it runs.
///
/// The audit calls one method at a time, from one thread at a time; whatever a method throws
/// stops the audit, and ``Audit/run(into:)`` throws it as ``AuditError/sink(_:)``.
public protocol AuditSink: AnyObject {
    /// Whether ``progress(_:)`` is wanted (a terminal shows it); counting a database's users
    /// for the total is skipped when not.
    var showsProgress: Bool { get }

    /// Takes output bytes: the CSV header first, then the lines of each user in input order.
    func write(_ bytes: [UInt8]) throws

    /// Takes the message for a record that cannot be used, `FILE:LINE: reason` or `user ID: reason`.
    func reject(_ message: String) throws

    /// Takes how far the audit has got, after each batch written (only when ``showsProgress``).
    func progress(_ position: AuditPosition) throws
}
