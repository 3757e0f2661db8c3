/// What the change log held after a position, written by other origins.
public struct ChangeLogRead: Hashable, Sendable {
    /// The changes, oldest first.
    public var changes: [Change]
    /// Where the next read starts.
    public var position: Int64
    /// Whether entries after the position read from were pruned before they were read: a cache
    /// must then drop everything.
    public var missedSome: Bool

    /// Creates a read.
    public init(changes: [Change], position: Int64, missedSome: Bool) {
        self.changes = changes
        self.position = position
        self.missedSome = missedSome
    }

    /// A read of the entries after `position`, given the ids of the first and last entries the
    /// log keeps (0 when it is empty), read in the same snapshot as the entries.
    ///
    /// Entries are numbered consecutively (a log whose newest entry is never pruned), so a first
    /// kept entry beyond `position + 1`, or a log that ends before `position` (the file was
    /// replaced), means entries were missed.
    package init(changes: [Change], after position: Int64, firstKept: Int64, last: Int64) {
        self.init(changes: changes, position: last, missedSome: last < position || (last > position && firstKept > position + 1))
    }
}
