public import Masthead

/// A subscription linked to a user (R14: environment + original transaction id), and since when.
public struct LinkedSubscription: Hashable, Sendable {
    public var environment: Environment
    public var originalTransactionId: String
    /// When it was linked to the user.
    public var linked: Instant
}
