/// One issue of a publication.
public struct Issue: Hashable, Sendable {
    /// Unique within its publication.
    public var id: String
    public var title: String?
    /// When the issue is published: readable from this instant on (R10).
    public var published: Instant
    /// A free issue is readable by everyone once published (R13).
    public var isFree: Bool

    /// Creates an issue.
    public init(id: String, title: String? = nil, published: Instant, isFree: Bool = false) {
        self.id = id
        self.title = title
        self.published = published
        self.isFree = isFree
    }
}
