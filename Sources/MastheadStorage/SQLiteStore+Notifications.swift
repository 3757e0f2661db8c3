public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT 1 FROM notifications WHERE notification_uuid = ?").firstRow([.text(uuid)]) { _ in true } ?? false
        }
    }

    /// Keeps the body, then deletes the oldest rows of its kind beyond
    /// ``rejectedNotificationRetention``'s row bound and byte bound; the newest row of a kind is
    /// always kept, so its `kind_seq`s are consecutive and the bytes (bodies and reasons) recorded
    /// before each row of the kind keep counting (both bounds are then index ranges, whatever the
    /// table holds).
    public func recordRejectedNotification(kind: RejectedNotification.Kind, reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        let reason = RejectedNotification.keptReason(reason)
        return try sqlite { () throws(SQLiteError) in
            let last = try statement(
                "SELECT kind_seq, bytes_before + length(body) + length(CAST(reason AS BLOB)) FROM rejected_notifications WHERE kind = ? ORDER BY kind_seq DESC LIMIT 1"
            ).firstRow([.text(kind.rawValue)]) { row throws(SQLiteError) in (try row.integer(0), try row.integer(1)) }
            let (sequence, before) = ((last?.0 ?? 0) + 1, last?.1 ?? 0)
            try statement("INSERT INTO rejected_notifications (received_ms, reason, bytes_before, body, kind, kind_seq) VALUES (?, ?, ?, ?, ?, ?)")
                .run([.integer(now.milliseconds), .text(reason), .integer(before), .blob(body), .text(kind.rawValue), .integer(sequence)])
            let id = database.lastInsertRowID
            try statement("DELETE FROM rejected_notifications WHERE kind = ?1 AND kind_seq < ?2 AND kind_seq <= ?2 - ?3")
                .run([.text(kind.rawValue), .integer(sequence), .integer(Int64(retention.rows))])
            try statement("DELETE FROM rejected_notifications WHERE kind = ? AND kind_seq < ? AND bytes_before < ?")
                .run([.text(kind.rawValue), .integer(sequence), .integer(before + Int64(body.count + reason.utf8.count) - Int64(retention.bytes))])
            return id
        }
    }

    public func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification] {
        try sqlite { () throws(SQLiteError) in
            let sql = withBodies
                ? "SELECT id, received_ms, reason, length(body), kind, body FROM rejected_notifications ORDER BY id DESC LIMIT ?"
                : "SELECT id, received_ms, reason, length(body), kind FROM rejected_notifications ORDER BY id DESC LIMIT ?"
            return try statement(sql).rows([.integer(Int64(limit))]) { row throws(SQLiteError) in
                RejectedNotification(
                    id: try row.integer(0), received: try row.instant(1), reason: try row.text(2), bodyBytes: Int(try row.integer(3)),
                    body: withBodies ? try row.blob(5) : nil, kind: RejectedNotification.Kind(rawValue: try row.text(4)) ?? .signed)
            }
        }
    }
}
