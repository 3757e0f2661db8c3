import Masthead
public import MastheadPostgreSQL
public import MastheadSQLite

/// A result row as a backend reads it: typed columns by index, each throwing the backend's error
/// (naming the column and the query) when the value is not of the type asked. The rows of the
/// store's tables are mapped to the domain's values once, in this protocol's extension.
public protocol StoreRow {
    /// The backend's error.
    associatedtype Failure: Error
    /// Column `index` as text (not NULL).
    func text(_ index: Int32) throws(Failure) -> String
    /// Column `index` as text, or nil for NULL.
    func optionalText(_ index: Int32) throws(Failure) -> String?
    /// Column `index` as an integer (not NULL).
    func integer(_ index: Int32) throws(Failure) -> Int64
    /// Column `index` as an integer, or nil for NULL.
    func optionalInteger(_ index: Int32) throws(Failure) -> Int64?
    /// Column `index` as a flag (not NULL).
    func bool(_ index: Int32) throws(Failure) -> Bool
    /// Column `index` as a flag, or nil for NULL.
    func optionalBool(_ index: Int32) throws(Failure) -> Bool?
    /// Column `index` as bytes (not NULL).
    func bytes(_ index: Int32) throws(Failure) -> [UInt8]
    /// Column `index` as bytes, or nil for NULL.
    func optionalBytes(_ index: Int32) throws(Failure) -> [UInt8]?
    /// The error for column `index` holding `value`, which the schema does not allow (`expected` says what it allows).
    func unexpected(_ index: Int32, value: String, expected: String) -> Failure
}

extension Row: StoreRow {
    public typealias Failure = SQLiteError

    public func bytes(_ index: Int32) throws(SQLiteError) -> [UInt8] { try blob(index) }

    public func optionalBytes(_ index: Int32) throws(SQLiteError) -> [UInt8]? { try optionalBlob(index) }

    public func unexpected(_ index: Int32, value: String, expected: String) -> SQLiteError {
        .columnValue(column: columnName(index), value: value, expected: expected, sql: sql)
    }
}

extension PostgreSQLRow: StoreRow {
    public typealias Failure = PostgreSQLError

    public func unexpected(_ index: Int32, value: String, expected: String) -> PostgreSQLError {
        .columnValue(column: columnName(index), value: value, expected: expected, sql: sql)
    }
}

/// Columns read as the domain's values: a value the schema does not allow throws, naming the column.
extension StoreRow {
    /// Column `index` as an App Store environment (its raw name).
    func environment(_ index: Int32) throws(Failure) -> Environment {
        try named(try text(index), index) { names in "an environment (\(names.joined(separator: " or ")))" }
    }

    /// Column `index` as an offer kind (its raw name), or nil for NULL.
    func optionalOffer(_ index: Int32) throws(Failure) -> OfferKind? {
        guard let name = try optionalText(index) else { return nil }
        return try named(name, index) { names in "an offer kind (\(names.joined(separator: ", "))) or NULL" }
    }

    /// The case named `name`, read from column `index`; a name of none is an error, `expected`
    /// saying what the column allows from the names of every case.
    private func named<Kind: RawRepresentable & CaseIterable>(
        _ name: String, _ index: Int32, expected: ([String]) -> String
    ) throws(Failure) -> Kind where Kind.RawValue == String {
        guard let value = Kind(rawValue: name) else { throw unexpected(index, value: name, expected: expected(Kind.allCases.map(\.rawValue))) }
        return value
    }

    /// Column `index` as a 32-bit integer, or nil for NULL.
    func optionalInt32(_ index: Int32) throws(Failure) -> Int32? {
        guard let number = try optionalInteger(index) else { return nil }
        guard let small = Int32(exactly: number) else { throw unexpected(index, value: String(number), expected: "a 32-bit integer or NULL") }
        return small
    }

    /// Column `index`, milliseconds since 1970, as an instant.
    func instant(_ index: Int32) throws(Failure) -> Instant {
        Instant(milliseconds: try integer(index))
    }

    /// Column `index` as an instant, or nil for NULL.
    func optionalInstant(_ index: Int32) throws(Failure) -> Instant? {
        try optionalInteger(index).map(Instant.init(milliseconds:))
    }

    /// The transaction whose columns a query selected as ``StoreColumns/transaction`` lists them.
    func transaction() throws(Failure) -> Transaction {
        Transaction(
            transactionId: try text(1), originalTransactionId: try text(2), productId: try text(3), purchase: try instant(4),
            expires: try optionalInstant(5), cancellation: try optionalInstant(6), isUpgraded: try bool(7), isTrial: try bool(8),
            isIntroductoryOffer: try bool(9), offer: try optionalOffer(10), environment: try environment(0), signedDate: try optionalInstant(11),
            unsignedCancellation: try optionalInstant(12), revocationType: try optionalText(13).map(RevocationType.init(rawValue:)),
            revocationPercentage: try optionalInt32(14), terms: try optionalPurchaseTerms(15))
    }

    /// The renewal info whose columns a query selected as ``StoreColumns/renewal`` lists them.
    func renewal() throws(Failure) -> RenewalInfo {
        RenewalInfo(
            environment: try environment(0), originalTransactionId: try text(1), productId: try optionalText(2),
            autoRenewProductId: try optionalText(3), autoRenewOn: try optionalBool(4), isInBillingRetry: try bool(5),
            gracePeriodExpires: try optionalInstant(6), expirationIntent: try optionalText(7), evidence: try optionalInstant(8),
            terms: try optionalRenewalTerms(9))
    }

    /// The app account token mapping whose columns a query selected as `token, user_id, linked_ms`.
    func appAccountToken() throws(Failure) -> AppAccountToken {
        AppAccountToken(token: try text(0), userId: try text(1), linked: try instant(2))
    }

    /// The change-log entry whose columns a query selected as `user_id, publication_id, issue_id`.
    func change() throws(Failure) -> Change {
        if let userId = try optionalText(0) { return .user(userId) }
        return .issue(publicationId: try text(1), issueId: try text(2))
    }
}
