public import Masthead

/// A Set App Account Token call owed to Apple: a subscription bought without an app account
/// token, linked to a user who has one, is given that token at Apple so that its later signed
/// transactions and notifications carry it. One per subscription, ever.
public struct AppAccountTokenUpdate: Hashable, Sendable {
    /// Where an update stands.
    public enum State: String, Sendable {
        /// Still to send (again, from its next attempt's instant).
        case pending
        /// Apple took it.
        case sent
        /// Given up: Apple refused it, or every attempt failed.
        case failed
    }

    public var environment: Environment
    public var originalTransactionId: String
    /// The user the subscription was linked to when it was queued.
    public var userId: String
    /// The token sent: the user's first linked one when it was queued, in lower case.
    public var appAccountToken: String
    /// Attempts begun so far, this one included once claimed.
    public var attempts: Int

    /// Creates an update.
    public init(environment: Environment, originalTransactionId: String, userId: String, appAccountToken: String, attempts: Int) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.attempts = attempts
    }
}
