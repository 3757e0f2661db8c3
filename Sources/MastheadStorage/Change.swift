/// One thing a committed write changed, as a cache of it (in this process or another) must know.
public enum Change: Hashable, Sendable {
    /// A user's purchase history: their links, their app account tokens, or a transaction or
    /// renewal info of a subscription linked to them.
    case user(String)
    /// An issue published or corrected through the API.
    case issue(publicationId: String, issueId: String)
}
