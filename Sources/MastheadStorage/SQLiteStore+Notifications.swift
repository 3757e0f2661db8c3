public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT 1 FROM notifications WHERE notification_uuid = ?").firstRow([.text(uuid)]) { _ in true } ?? false
        }
    }

    /// Keeps the body, then deletes the oldest rows beyond ``rejectedNotificationRetention``'s
    /// row bound and byte bound (the newest row is always kept, so ids keep growing).
    public func recordRejectedNotification(reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        return try sqlite { () throws(SQLiteError) in
            try statement("INSERT INTO rejected_notifications (received_ms, reason, body) VALUES (?, ?, ?)")
                .run([.integer(now.milliseconds), .text(reason), .blob(body)])
            let id = database.lastInsertRowID
            try statement("""
                DELETE FROM rejected_notifications WHERE id < ?1 AND (
                    id <= (SELECT id FROM rejected_notifications ORDER BY id DESC LIMIT 1 OFFSET ?2)
                    OR id <= (SELECT id FROM (SELECT id, sum(length(body)) OVER (ORDER BY id DESC) AS kept FROM rejected_notifications)
                        WHERE kept > ?3 ORDER BY id DESC LIMIT 1))
                """).run([.integer(id), .integer(Int64(retention.rows)), .integer(Int64(retention.bytes))])
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
