import CLibPQ

/// One PostgreSQL connection through libpq, owned by one thread at a time.
///
/// Every query with parameters is prepared once per connection (per SQL text and parameter
/// types, `PQprepare`) and then executed by name (`PQexecPrepared`), so it is parsed and planned
/// once: values travel as parameters (`$1`, `$2` …), never in the SQL text; integers, text and
/// booleans in text format with their types, bytes in binary.
/// Results are read in text format, each column checked against its type by ``PostgreSQLRow``.
/// The server's notices (`NOTICE: relation exists, skipping`) are not printed. Not `Sendable`:
/// give each thread its own.
public final class PostgreSQLConnection {
    let handle: OpaquePointer
    /// The connection string with its password removed, for messages (``redacted(_:)``).
    public let target: String
    /// The statements prepared on this connection, by SQL and parameter types: their names.
    private var prepared: [PreparedKey: String] = [:]
    private struct PreparedKey: Hashable {
        let sql: String
        let types: [Oid]
    }

    /// Connects with a libpq connection string: a `postgresql://` (or `postgres://`) URL, or
    /// `key=value` pairs; the session then speaks UTF-8.
    /// - Throws: ``PostgreSQLError/connection(target:message:)`` naming the target without its password.
    public init(_ connectionString: String) throws(PostgreSQLError) {
        target = PostgreSQLConnection.redacted(connectionString)
        guard let handle = PQconnectdb(connectionString) else { throw .connection(target: target, message: "libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = PostgreSQLConnection.message(handle)
            PQfinish(handle)
            throw .connection(target: target, message: message)
        }
        self.handle = handle
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        try execute("SET client_encoding = 'UTF8'")
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is up as libpq last saw it: a server that closed it (a restart, a
    /// failover, `pg_terminate_backend`) is seen when a query fails.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Connects again with the same parameters after the server closed the connection; the
    /// statements prepared before are prepared again as they are used. Session settings made
    /// with `SET` are lost: the caller makes them again.
    /// - Throws: ``PostgreSQLError/connection(target:message:)`` when the server cannot be reached.
    public func reconnect() throws(PostgreSQLError) {
        PQreset(handle)
        prepared = [:]
        guard PQstatus(handle) == CONNECTION_OK else { throw .connection(target: target, message: PostgreSQLConnection.message(handle)) }
        try execute("SET client_encoding = 'UTF8'")
    }

    /// Runs one or more statements without parameters (a migration's script, `BEGIN`).
    public func execute(_ sql: String) throws(PostgreSQLError) {
        PQclear(try check(PQexec(handle, sql), sql: sql))
    }

    /// Runs a statement with these parameters; returns how many rows it changed.
    /// - Parameter values: the parameters, `$1` first.
    @discardableResult
    public func run(_ sql: String, _ values: [PostgreSQLValue]) throws(PostgreSQLError) -> Int {
        let result = try query(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Every result row, each read by `read`.
    /// - Parameter values: the parameters, `$1` first.
    /// - Parameter read: called once per row; the ``PostgreSQLRow`` is valid only during the call.
    public func rows<T>(_ sql: String, _ values: [PostgreSQLValue], _ read: (PostgreSQLRow) throws(PostgreSQLError) -> T) throws(PostgreSQLError) -> [T] {
        let result = try query(sql, values)
        defer { PQclear(result) }
        var rows: [T] = []
        for index in 0..<PQntuples(result) { rows.append(try read(PostgreSQLRow(result: result, row: index, sql: sql))) }
        return rows
    }

    /// The first result row read by `read`, or nil when there is none.
    public func firstRow<T>(_ sql: String, _ values: [PostgreSQLValue], _ read: (PostgreSQLRow) throws(PostgreSQLError) -> T) throws(PostgreSQLError) -> T? {
        let result = try query(sql, values)
        defer { PQclear(result) }
        return PQntuples(result) > 0 ? try read(PostgreSQLRow(result: result, row: 0, sql: sql)) : nil
    }

    /// The first result row read by `read`, for a statement that always answers one (an aggregate).
    /// - Throws: ``PostgreSQLError/noRow(sql:)`` when it answers none.
    public func singleRow<T>(_ sql: String, _ values: [PostgreSQLValue], _ read: (PostgreSQLRow) throws(PostgreSQLError) -> T) throws(PostgreSQLError) -> T {
        guard let row = try firstRow(sql, values, read) else { throw .noRow(sql: sql) }
        return row
    }

    /// The first column of the first row of `sql` (see ``PostgreSQLRow/value(_:)``), or nil when there is no row.
    public func scalar(_ sql: String, _ values: [PostgreSQLValue] = []) throws(PostgreSQLError) -> PostgreSQLValue? {
        try firstRow(sql, values) { row throws(PostgreSQLError) in try row.value(0) }
    }

    /// Whether no transaction is open.
    public var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Sends `sql` with `values` and answers its result, which the caller clears.
    private func query(_ sql: String, _ values: [PostgreSQLValue]) throws(PostgreSQLError) -> OpaquePointer {
        var types: [Oid] = []
        var formats: [Int32] = []
        var lengths: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        defer { for buffer in buffers { buffer?.deallocate() } }
        for (offset, value) in values.enumerated() {
            let (type, format, bytes): (Oid, Int32, [UInt8]?)
            switch value {
            case .null: (type, format, bytes) = (0, 0, nil)
            case .integer(let number): (type, format, bytes) = (PostgreSQLType.int8, 0, Array(String(number).utf8))
            case .bool(let flag): (type, format, bytes) = (PostgreSQLType.bool, 0, [UInt8(ascii: flag ? "t" : "f")])
            case .text(let text):
                let utf8 = Array(text.utf8)
                // Text parameters are C strings: a NUL would cut the value short, so it is refused.
                guard !utf8.contains(0) else { throw .textWithNUL(parameter: offset + 1, sql: sql) }
                (type, format, bytes) = (PostgreSQLType.text, 0, utf8)
            case .bytes(let data): (type, format, bytes) = (PostgreSQLType.bytea, 1, data)
            }
            types.append(type)
            formats.append(format)
            guard let bytes else {
                buffers.append(nil)
                lengths.append(0)
                continue
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count) }
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
        }
        let pointers = buffers.map { $0.map { UnsafePointer($0) } }
        return try check(PQexecPrepared(handle, try preparedName(sql, types), Int32(values.count), pointers, lengths, formats, 0), sql: sql)
    }

    /// The name of `sql` prepared with these parameter types, preparing it the first time.
    private func preparedName(_ sql: String, _ types: [Oid]) throws(PostgreSQLError) -> String {
        let key = PreparedKey(sql: sql, types: types)
        if let name = prepared[key] { return name }
        let name = "masthead_\(prepared.count)"
        PQclear(try check(PQprepare(handle, name, sql, Int32(types.count), types), sql: sql))
        prepared[key] = name
        return name
    }

    /// `result` when it reports success; otherwise it is cleared and its error thrown.
    private func check(_ result: OpaquePointer?, sql: String) throws(PostgreSQLError) -> OpaquePointer {
        guard let result else { throw .connection(target: target, message: PostgreSQLConnection.message(handle)) }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return result }
        defer { PQclear(result) }
        if PQstatus(handle) != CONNECTION_OK { throw .connection(target: target, message: PostgreSQLConnection.message(handle)) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "XX000"  // PG_DIAG_SQLSTATE
        let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }  // PG_DIAG_MESSAGE_PRIMARY
        throw .failed(sqlState: state, message: message ?? PostgreSQLConnection.message(handle), sql: sql)
    }

    /// libpq's last message for the connection, without its trailing newline.
    private static func message(_ handle: OpaquePointer) -> String {
        var text = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
