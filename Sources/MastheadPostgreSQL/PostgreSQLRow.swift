import CLibPQ

/// One row of a result, read in text format: each column is checked against its PostgreSQL type,
/// so a column read as another type, or NULL where a value is required, throws an error naming
/// the column and the SQL. Valid only during the call it is given to.
public struct PostgreSQLRow {
    let result: OpaquePointer
    let row: Int32
    /// The SQL the row comes from.
    public let sql: String

    /// Whether column `index` is NULL.
    public func isNull(_ index: Int32) -> Bool { PQgetisnull(result, row, index) == 1 }

    /// Column `index`, which must hold text.
    public func text(_ index: Int32) throws(PostgreSQLError) -> String {
        try require(index, [PostgreSQLType.text, PostgreSQLType.varchar])
        return raw(index)
    }

    /// Column `index` as text, or nil for NULL.
    public func optionalText(_ index: Int32) throws(PostgreSQLError) -> String? {
        try require(index, [PostgreSQLType.text, PostgreSQLType.varchar], orNull: true) ? raw(index) : nil
    }

    /// Column `index`, which must hold an integer (`bigint`, `integer` or `smallint`).
    public func integer(_ index: Int32) throws(PostgreSQLError) -> Int64 {
        try require(index, PostgreSQLRow.integers)
        return try integerValue(index)
    }

    /// Column `index` as an integer, or nil for NULL.
    public func optionalInteger(_ index: Int32) throws(PostgreSQLError) -> Int64? {
        try require(index, PostgreSQLRow.integers, orNull: true) ? try integerValue(index) : nil
    }

    /// Column `index`, which must hold a boolean.
    public func bool(_ index: Int32) throws(PostgreSQLError) -> Bool {
        try require(index, [PostgreSQLType.bool])
        return raw(index) == "t"
    }

    /// Column `index` as a boolean, or nil for NULL.
    public func optionalBool(_ index: Int32) throws(PostgreSQLError) -> Bool? {
        try require(index, [PostgreSQLType.bool], orNull: true) ? raw(index) == "t" : nil
    }

    /// Column `index`, which must hold `bytea`: its bytes.
    public func bytes(_ index: Int32) throws(PostgreSQLError) -> [UInt8] {
        try require(index, [PostgreSQLType.bytea])
        return try bytesValue(index)
    }

    /// Column `index` as `bytea`'s bytes, or nil for NULL.
    public func optionalBytes(_ index: Int32) throws(PostgreSQLError) -> [UInt8]? {
        try require(index, [PostgreSQLType.bytea], orNull: true) ? try bytesValue(index) : nil
    }

    /// Column `index` as the value it holds: NULL, an integer, a boolean, text or bytes.
    public func value(_ index: Int32) throws(PostgreSQLError) -> PostgreSQLValue {
        if isNull(index) { return .null }
        switch PQftype(result, index) {
        case PostgreSQLType.bool: return .bool(raw(index) == "t")
        case PostgreSQLType.bytea: return .bytes(try bytesValue(index))
        case PostgreSQLType.text, PostgreSQLType.varchar: return .text(raw(index))
        case let type where PostgreSQLRow.integers.contains(type): return .integer(try integerValue(index))
        default: throw .columnType(column: columnName(index), expected: "boolean, bytea, text or an integer", found: typeName(index), sql: sql)
        }
    }

    /// The name of column `index` as the query gives it (its `AS` name, or PostgreSQL's).
    public func columnName(_ index: Int32) -> String {
        PQfname(result, index).map { String(cString: $0) } ?? "#\(index)"
    }

    private static let integers: Set<Oid> = [PostgreSQLType.int8, PostgreSQLType.int4, PostgreSQLType.int2]

    /// The text of column `index` (text format never holds a NUL).
    private func raw(_ index: Int32) -> String {
        let count = Int(PQgetlength(result, row, index))
        return PQgetvalue(result, row, index).withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    private func integerValue(_ index: Int32) throws(PostgreSQLError) -> Int64 {
        let text = raw(index)
        guard let number = Int64(text) else { throw .columnValue(column: columnName(index), value: text, expected: "a 64-bit integer", sql: sql) }
        return number
    }

    /// `bytea` in text format is `\x` and two hexadecimal digits a byte.
    private func bytesValue(_ index: Int32) throws(PostgreSQLError) -> [UInt8] {
        let text = Array(raw(index).utf8)
        guard text.count % 2 == 0, text.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else {
            throw .columnValue(column: columnName(index), value: String(decoding: text.prefix(16), as: UTF8.self), expected: "bytea in hex format", sql: sql)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2 - 1)
        var offset = 2
        while offset < text.count {
            guard let high = PostgreSQLRow.hexDigit(text[offset]), let low = PostgreSQLRow.hexDigit(text[offset + 1]) else {
                throw .columnValue(column: columnName(index), value: String(decoding: text.prefix(16), as: UTF8.self), expected: "bytea in hex format", sql: sql)
            }
            bytes.append(high << 4 | low)
            offset += 2
        }
        return bytes
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func typeName(_ index: Int32) -> String { PostgreSQLType.name(PQftype(result, index)) }

    /// Checks that column `index` holds one of `types` (or NULL, when `orNull`); answers whether it is not NULL.
    @discardableResult
    private func require(_ index: Int32, _ types: Set<Oid>, orNull: Bool = false) throws(PostgreSQLError) -> Bool {
        let type = PQftype(result, index)
        guard types.contains(type) else {
            throw .columnType(column: columnName(index), expected: types.map(PostgreSQLType.name).sorted().joined(separator: " or "), found: PostgreSQLType.name(type), sql: sql)
        }
        if !isNull(index) { return true }
        if orNull { return false }
        throw .columnType(column: columnName(index), expected: PostgreSQLType.name(type), found: "NULL", sql: sql)
    }
}
