import CSQLite

/// A prepared statement, finalized when released.
///
/// It is used only through calls that bind, step and reset it before they return (``run(_:)``,
/// ``rows(_:_:)``, ``firstRow(_:_:)``, ``singleRow(_:_:)``), so no statement stays active between
/// calls: an active statement keeps its connection's read transaction open, which pins an old
/// snapshot for every later read on the connection and stops checkpoints from restarting the WAL.
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

    /// Runs the statement to completion with these parameters.
    /// - Parameter values: the parameters, bound from 1 in order.
    public func run(_ values: [SQLValue]) throws(SQLiteError) {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    /// Every result row, each read by `read`.
    /// - Parameter values: the parameters, bound from 1 in order.
    /// - Parameter read: called once per row; the ``Row`` is valid only during the call. What it
    ///   throws (a column not of the type read) ends the reading.
    public func rows<T>(_ values: [SQLValue], _ read: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> [T] {
        defer { reset() }
        try bind(values)
        var result: [T] = []
        while try step() { result.append(try read(Row(handle: handle))) }
        return result
    }

    /// The first result row read by `read`, or nil when there is none; the rest are not computed.
    /// - Parameter values: the parameters, bound from 1 in order.
    /// - Parameter read: called at most once; the ``Row`` is valid only during the call.
    public func firstRow<T>(_ values: [SQLValue], _ read: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> T? {
        defer { reset() }
        try bind(values)
        return try step() ? try read(Row(handle: handle)) : nil
    }

    /// The first result row read by `read`, for a statement that always answers one (an aggregate
    /// such as `count(*)`).
    /// - Throws: ``SQLiteError/noRow(sql:)`` when it answers none.
    public func singleRow<T>(_ values: [SQLValue], _ read: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        guard let row = try firstRow(values, read) else { throw SQLiteError.noRow(sql: sql) }
        return row
    }

    /// Binds parameters from 1 in order; text is bound with its byte length (a NUL is a
    /// character like any other), and text and blobs are copied (`SQLITE_TRANSIENT`).
    private func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(handle, index)
            case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                var text = text
                result = text.withUTF8 { bytes in
                    // A nil base address would bind NULL: empty text gets a real empty string.
                    guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, Statement.transient) }
                    return sqlite3_bind_text64(
                        handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                        Statement.transient, UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                // A nil base address would bind NULL: an empty blob is bound as a zero-length one.
                result = bytes.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
                    return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(raw.count), Statement.transient)
                }
            }
            guard result == SQLITE_OK else { throw database.error(result, sql: sql) }
        }
    }

    /// Steps once: true when a row is available, false when done.
    private func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(result, sql: sql)
        }
    }

    /// Ends the statement's run (and with it the read transaction it held) and clears its parameters.
    private func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
