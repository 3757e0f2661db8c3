public import Masthead

/// What storing a grant did: the store had no grant with its id, held one it changed, or held it
/// exactly as given (every field, ids by their bytes).
public enum GrantWrite: String, Hashable, Sendable, CaseIterable {
    /// The grant id was new: the grant is stored.
    case added
    /// The grant replaced the user's grant of the same id, which differed.
    case changed
    /// The user's grant of the same id was exactly this one: nothing was written.
    case unchanged
}

/// A grant and the user it belongs to, as a batch of grants (``StoreWriter/applyGrants(_:now:origin:)``) gives them.
public struct UserGrant: Hashable, Sendable {
    /// The user the grant is for.
    public var userId: String
    /// The grant.
    public var grant: Grant

    /// A grant for a user.
    public init(userId: String, grant: Grant) {
        self.userId = userId
        self.grant = grant
    }

    /// Whether `other` is the same user and grant to the byte (Swift's `==` compares strings canonically).
    public func isIdentical(to other: UserGrant) -> Bool {
        userId.sameBytes(as: other.userId) && StoredGrant.identical(grant, other.grant)
    }
}
