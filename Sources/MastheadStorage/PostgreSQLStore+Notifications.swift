public import Masthead
import MastheadPostgreSQL

extension PostgreSQLStore {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.firstRow("SELECT 1 FROM notifications WHERE notification_uuid = $1", [.text(uuid)]) { _ in true } ?? false
        }
    }

    /// Keeps the body, then deletes the oldest rows of its kind beyond
    /// ``rejectedNotificationRetention``'s row bound and byte bound, as ``SQLiteStore`` does: ids
    /// and a kind's `kind_seq`s are the newest plus one, taken with the table locked against other
    /// writers until the transaction ends, so they are consecutive and both bounds are index ranges.
    public func recordRejectedNotification(kind: RejectedNotification.Kind, reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        let reason = RejectedNotification.keptReason(reason)
        return try inWrite { () throws(PostgreSQLError) in
            try connection.execute("LOCK TABLE rejected_notifications IN SHARE ROW EXCLUSIVE MODE")
            let id = try connection.firstRow("SELECT coalesce(max(id), 0) + 1 FROM rejected_notifications", []) { row throws(PostgreSQLError) in
                try row.integer(0)
            } ?? 1
            let last = try connection.firstRow(
                "SELECT kind_seq, bytes_before + octet_length(body) + octet_length(reason) FROM rejected_notifications WHERE kind = $1 ORDER BY kind_seq DESC LIMIT 1",
                [.text(kind.rawValue)]
            ) { row throws(PostgreSQLError) in (try row.integer(0), try row.integer(1)) }
            let (sequence, before) = ((last?.0 ?? 0) + 1, last?.1 ?? 0)
            try connection.run(
                "INSERT INTO rejected_notifications (id, received_ms, reason, bytes_before, body, kind, kind_seq) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [.integer(id), .integer(now.milliseconds), .text(reason), .integer(before), .bytes(body), .text(kind.rawValue), .integer(sequence)])
            try connection.run(
                "DELETE FROM rejected_notifications WHERE kind = $1 AND kind_seq < $2 AND kind_seq <= $2 - $3",
                [.text(kind.rawValue), .integer(sequence), .integer(Int64(retention.rows))])
            try connection.run(
                "DELETE FROM rejected_notifications WHERE kind = $1 AND kind_seq < $2 AND bytes_before < $3",
                [.text(kind.rawValue), .integer(sequence), .integer(before + Int64(body.count + reason.utf8.count) - Int64(retention.bytes))])
            return id
        }
    }

    public func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification] {
        try postgreSQL { () throws(PostgreSQLError) in
            let sql = withBodies
                ? "SELECT id, received_ms, reason, octet_length(body), kind, body FROM rejected_notifications ORDER BY id DESC LIMIT $1"
                : "SELECT id, received_ms, reason, octet_length(body), kind FROM rejected_notifications ORDER BY id DESC LIMIT $1"
            return try connection.rows(sql, [.integer(Int64(limit))]) { row throws(PostgreSQLError) in
                RejectedNotification(
                    id: try row.integer(0), received: try row.instant(1), reason: try row.text(2), bodyBytes: Int(try row.integer(3)),
                    body: withBodies ? try row.bytes(5) : nil, kind: RejectedNotification.Kind(rawValue: try row.text(4)) ?? .signed)
            }
        }
    }
}
