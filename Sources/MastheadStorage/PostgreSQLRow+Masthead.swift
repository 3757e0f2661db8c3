import Masthead
import MastheadPostgreSQL

/// Columns read as the domain's values: a value the schema does not allow throws, naming the column.
extension PostgreSQLRow {
    /// Column `index` as an App Store environment (its raw name).
    func environment(_ index: Int32) throws(PostgreSQLError) -> Environment {
        let name = try text(index)
        guard let environment = Environment(rawValue: name) else {
            let names = Environment.allCases.map(\.rawValue).joined(separator: " or ")
            throw .columnValue(column: columnName(index), value: name, expected: "an environment (\(names))", sql: sql)
        }
        return environment
    }

    /// Column `index` as an offer kind (its raw name), or nil for NULL.
    func optionalOffer(_ index: Int32) throws(PostgreSQLError) -> OfferKind? {
        guard let name = try optionalText(index) else { return nil }
        guard let offer = OfferKind(rawValue: name) else {
            let names = OfferKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .columnValue(column: columnName(index), value: name, expected: "an offer kind (\(names)) or NULL", sql: sql)
        }
        return offer
    }

    /// The transaction whose columns a query selected as ``SQLiteStore/transactionColumns(_:)`` gives them.
    func transaction() throws(PostgreSQLError) -> Transaction {
        Transaction(
            transactionId: try text(1), originalTransactionId: try text(2), productId: try text(3), purchase: try instant(4),
            expires: try optionalInstant(5), cancellation: try optionalInstant(6), isUpgraded: try bool(7), isTrial: try bool(8),
            isIntroductoryOffer: try bool(9), offer: try optionalOffer(10), environment: try environment(0), signedDate: try optionalInstant(11),
            unsignedCancellation: try optionalInstant(12))
    }

    /// Column `index`, milliseconds since 1970, as an instant.
    func instant(_ index: Int32) throws(PostgreSQLError) -> Instant {
        Instant(milliseconds: try integer(index))
    }

    /// Column `index` as an instant, or nil for NULL.
    func optionalInstant(_ index: Int32) throws(PostgreSQLError) -> Instant? {
        try optionalInteger(index).map(Instant.init(milliseconds:))
    }
}
