import Masthead
import MastheadSQLite

/// Columns read as the domain's values: a value the schema does not allow throws, naming the column.
extension Row {
    /// Column `index` as an App Store environment (its raw name).
    func environment(_ index: Int32) throws(SQLiteError) -> Environment {
        let name = try text(index)
        guard let environment = Environment(rawValue: name) else {
            let names = Environment.allCases.map(\.rawValue).joined(separator: " or ")
            throw SQLiteError.columnValue(column: columnName(index), value: name, expected: "an environment (\(names))", sql: sql)
        }
        return environment
    }

    /// Column `index`, milliseconds since 1970, as an instant.
    func instant(_ index: Int32) throws(SQLiteError) -> Instant {
        Instant(milliseconds: try integer(index))
    }

    /// Column `index` as an instant, or nil for NULL.
    func optionalInstant(_ index: Int32) throws(SQLiteError) -> Instant? {
        try optionalInteger(index).map(Instant.init(milliseconds:))
    }
}
