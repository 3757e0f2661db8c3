/// One thing a committed write changed, as a cache of it (in this process or another) must know.
public enum Change: Hashable, Sendable {
    /// A user's purchase history: their links, or a transaction or renewal info of a subscription linked to them.
    case user(String)
    /// An issue published or corrected through the API.
    case issue(publicationId: String, issueId: String)
}

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
}
