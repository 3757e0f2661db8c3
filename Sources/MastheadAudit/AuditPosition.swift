/// How far an audit has got: users decided, and input consumed of the total.
public struct AuditPosition: Sendable, Equatable {
    /// What ``done`` and ``total`` count.
    public enum Unit: Sendable, Equatable {
        /// Bytes of a receipts file.
        case bytes
        /// Users of a database.
        case users
    }

    public var unit: Unit
    /// Users decided and written (or rejected).
    public var users: Int
    /// Input consumed, in ``unit``.
    public var done: Int
    /// The size of the input in ``unit``, when known (not for standard input or a pipe).
    public var total: Int?

    /// A position.
    public init(unit: Unit, users: Int, done: Int, total: Int?) {
        self.unit = unit
        self.users = users
        self.done = done
        self.total = total
    }
}
