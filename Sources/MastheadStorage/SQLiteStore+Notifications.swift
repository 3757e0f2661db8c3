public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT 1 FROM notifications WHERE notification_uuid = ?").firstRow([.text(uuid)]) { _ in true } ?? false
        }
    }

    /// Keeps the body, then deletes the oldest rows beyond ``rejectedNotificationRetention``'s
    /// row bound and byte bound; the newest row is always kept, so ids are consecutive and the
    /// bytes recorded before each row keep counting (both bounds are then index ranges, whatever
    /// the table holds).
    public func recordRejectedNotification(reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        return try sqlite { () throws(SQLiteError) in
            let before = try statement("SELECT bytes_before + length(body) AS bytes FROM rejected_notifications ORDER BY id DESC LIMIT 1")
                .firstRow([]) { row throws(SQLiteError) in try row.integer(0) } ?? 0
            try statement("INSERT INTO rejected_notifications (received_ms, reason, bytes_before, body) VALUES (?, ?, ?, ?)")
                .run([.integer(now.milliseconds), .text(reason), .integer(before), .blob(body)])
            let id = database.lastInsertRowID
            try statement("DELETE FROM rejected_notifications WHERE id < ?1 AND id <= ?1 - ?2").run([.integer(id), .integer(Int64(retention.rows))])
            try statement("DELETE FROM rejected_notifications WHERE id < ? AND bytes_before < ?")
                .run([.integer(id), .integer(before + Int64(body.count) - Int64(retention.bytes))])
            return id
        }
    }

    public func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification] {
        try sqlite { () throws(SQLiteError) in
            let sql = withBodies
                ? "SELECT id, received_ms, reason, length(body), body FROM rejected_notifications ORDER BY id DESC LIMIT ?"
                : "SELECT id, received_ms, reason, length(body) FROM rejected_notifications ORDER BY id DESC LIMIT ?"
            return try statement(sql).rows([.integer(Int64(limit))]) { row throws(SQLiteError) in
                RejectedNotification(
                    id: try row.integer(0), received: try row.instant(1), reason: try row.text(2), bodyBytes: Int(try row.integer(3)),
                    body: withBodies ? try row.blob(4) : nil)
            }
        }
    }
}
