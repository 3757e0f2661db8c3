import CSQLite

/// A prepared statement, finalized when released.
public final class Statement {
    let handle: OpaquePointer
    let database: Database
    let sql: String

    init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds parameters from 1 in order (text copied with `SQLITE_TRANSIENT`), after a reset.
    @discardableResult
    public func bind(_ values: [SQLValue]) throws(StorageError) -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(handle, index)
            case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
            case .text(let text): result = sqlite3_bind_text(handle, index, text, -1, Statement.transient)
            }
            guard result == SQLITE_OK else { throw database.error(result, sql: sql) }
        }
        return self
    }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    public func step() throws(StorageError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(result, sql: sql)
        }
    }

    /// Runs the statement to completion with these parameters.
    public func run(_ values: [SQLValue]) throws(StorageError) {
        try bind(values)
        while try step() {}
    }

    /// Column `index` (from 0) as text; nil for NULL.
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: pointer)
    }

    /// Column `index` as an integer; nil for NULL.
    public func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A value bound to a statement parameter.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case text(String)

    /// Text, or NULL for nil.
    public static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }

    /// An integer, or NULL for nil.
    public static func optional(_ number: Int64?) -> SQLValue { number.map { .integer($0) } ?? .null }
}
