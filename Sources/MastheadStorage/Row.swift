import CSQLite

/// The current result row of a statement, readable only inside the closure it is given to.
public struct Row {
    let handle: OpaquePointer

    /// Column `index` (from 0) as text, every byte of it (read with its length, so a NUL does
    /// not end it); nil for NULL.
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as an integer; nil for NULL.
    public func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }
}
