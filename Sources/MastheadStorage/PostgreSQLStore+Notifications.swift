public import Masthead
import MastheadPostgreSQL

extension PostgreSQLStore {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.firstRow("SELECT 1 FROM notifications WHERE notification_uuid = $1", [.text(uuid)]) { _ in true } ?? false
        }
    }

    /// Keeps the body, then deletes the oldest rows beyond ``rejectedNotificationRetention``'s
    /// row bound and byte bound, as ``SQLiteStore`` does: ids are the newest id plus one, taken
    /// with the table locked against other writers until the transaction ends, so they are
    /// consecutive and both bounds are index ranges.
    public func recordRejectedNotification(reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        return try inWrite { () throws(PostgreSQLError) in
            try connection.execute("LOCK TABLE rejected_notifications IN SHARE ROW EXCLUSIVE MODE")
            let last = try connection.firstRow(
                "SELECT id, bytes_before + octet_length(body) AS bytes FROM rejected_notifications ORDER BY id DESC LIMIT 1", []
            ) { row throws(PostgreSQLError) in (try row.integer(0), try row.integer(1)) }
            let (id, before) = ((last?.0 ?? 0) + 1, last?.1 ?? 0)
            try connection.run(
                "INSERT INTO rejected_notifications (id, received_ms, reason, bytes_before, body) VALUES ($1, $2, $3, $4, $5)",
                [.integer(id), .integer(now.milliseconds), .text(reason), .integer(before), .bytes(body)])
            try connection.run("DELETE FROM rejected_notifications WHERE id < $1 AND id <= $1 - $2", [.integer(id), .integer(Int64(retention.rows))])
            try connection.run(
                "DELETE FROM rejected_notifications WHERE id < $1 AND bytes_before < $2",
                [.integer(id), .integer(before + Int64(body.count) - Int64(retention.bytes))])
            return id
        }
    }

    public func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification] {
        try postgreSQL { () throws(PostgreSQLError) in
            let sql = withBodies
                ? "SELECT id, received_ms, reason, octet_length(body), body FROM rejected_notifications ORDER BY id DESC LIMIT $1"
                : "SELECT id, received_ms, reason, octet_length(body) FROM rejected_notifications ORDER BY id DESC LIMIT $1"
            return try connection.rows(sql, [.integer(Int64(limit))]) { row throws(PostgreSQLError) in
                RejectedNotification(
                    id: try row.integer(0), received: try row.instant(1), reason: try row.text(2), bodyBytes: Int(try row.integer(3)),
                    body: withBodies ? try row.bytes(4) : nil)
            }
        }
    }
}
