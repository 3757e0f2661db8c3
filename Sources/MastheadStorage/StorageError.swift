public import MastheadPostgreSQL
public import MastheadSQLite

/// A store failure: the database's, or the store's policy refusing a write.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible, SQLiteErrorConvertible, PostgreSQLErrorConvertible {
    /// SQLite failed, or a row did not hold what the schema says (the SQLite store).
    case sqlite(SQLiteError)
    /// PostgreSQL failed or could not be reached, or a row did not hold what the schema says (the PostgreSQL store).
    case postgreSQL(PostgreSQLError)
    /// A subscription is linked to another user and the restore behaviour refuses to move it.
    case receiptAlreadyInUse(environment: String, originalTransactionId: String, userId: String)
    /// An app account token is not a UUID written 8-4-4-4-12 hexadecimal digits (the value given).
    case invalidAppAccountToken(String)
    /// An app account token (canonical) already belongs to another user (`userId`); nothing was changed.
    case appAccountTokenInUse(token: String, userId: String)
    /// A notification with this `notificationUUID` is stored already: a second delivery of it, not
    /// stored or applied again.
    case notificationAlreadyRecorded(uuid: String)
    /// A grant id (its exact bytes) names a grant of another user (`userId`): a grant id is
    /// global to the store; nothing was changed.
    case grantBelongsToAnotherUser(grantId: String, userId: String)
    /// The store was closed: it takes no more writes.
    case closed
    /// A user's stored history (their `user_histories` row) is not a whole history in its
    /// format: `problem` says what is wrong. Nothing is answered from it.
    case storedHistory(userId: String, problem: String)

    public init(sqlite error: SQLiteError) { self = .sqlite(error) }

    public init(postgreSQL error: PostgreSQLError) { self = .postgreSQL(error) }

    public var description: String {
        switch self {
        case .sqlite(let error): "\(error)"
        case .postgreSQL(let error): "\(error)"
        case .receiptAlreadyInUse(let environment, let original, _):
            "subscription \(original) (\(environment)) is already linked to another user"
        case .invalidAppAccountToken(let value):
            "app account token '\(value)' is not a UUID written 8-4-4-4-12 hexadecimal digits"
        case .appAccountTokenInUse(let token, _): "app account token \(token) is already linked to another user"
        case .notificationAlreadyRecorded(let uuid): "notification \(uuid) is already stored"
        case .grantBelongsToAnotherUser(let grantId, _): "grant \(grantId) belongs to another user"
        case .closed: "the store is closed"
        case .storedHistory(let userId, let problem): "the stored history of user \(userId) is unreadable: \(problem)"
        }
    }
}
