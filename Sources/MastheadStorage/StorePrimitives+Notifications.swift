public import Masthead

/// Notifications and rejected notifications, once for every backend.
extension StorePrimitives {
    public func hasNotification(uuid: String) throws(StorageError) -> Bool {
        try firstRow("SELECT 1 FROM notifications WHERE notification_uuid = $1", [.text(uuid)]) { _ in true } ?? false
    }

    /// A second delivery is recognised by the unique index on `notification_uuid` (`ON CONFLICT
    /// DO NOTHING`), so two connections receiving it together store it once. The notification is
    /// indexed under each subscription it names (its environment and each distinct original
    /// transaction id, by their bytes), so that a user's notifications are found without a scan.
    public func recordNotification(
        type: String, subtype: String?, uuid: String?, environment: Environment?, originalTransactionIds: [String], body: String,
        signed: Bool, received: Instant
    ) throws(StorageError) -> Int64 {
        try inWrite { () throws(StorageError) -> Int64 in
            let id = try firstRow(
                """
                INSERT INTO notifications (received_ms, notification_type, subtype, notification_uuid, environment, original_transaction_ids, body, signed)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (notification_uuid) WHERE notification_uuid IS NOT NULL DO NOTHING
                RETURNING id
                """,
                [
                    .integer(received.milliseconds), .text(type), .optional(subtype), .optional(uuid), .optional(environment?.rawValue),
                    .text(originalTransactionIds.joined(separator: ",")), .text(body), .bool(signed),
                ]
            ) { row throws(Row.Failure) in try row.integer(0) }
            guard let id else { throw .notificationAlreadyRecorded(uuid: uuid ?? "") }
            if let environment {
                let index = try prepare(
                    "INSERT INTO notification_subscriptions (environment, original_transaction_id, notification_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                for original in Set(originalTransactionIds.map(ExactKey.init)) where !original.text.isEmpty {
                    try run(index, [.text(environment.rawValue), .text(original.text), .integer(id)])
                }
            }
            return id
        }
    }

    /// The newest `limit` notifications naming a subscription linked to `userId`, newest first
    /// (as received, then as stored), found through `notification_subscriptions`.
    public func notifications(forUser userId: String, limit: Int) throws(StorageError) -> [StoredNotification] {
        try rows(
            """
            SELECT id, received_ms, notification_type, subtype, environment, signed, notification_uuid, original_transaction_ids
            FROM notifications WHERE id IN (
                SELECT n.notification_id FROM subscriptions s JOIN notification_subscriptions n
                ON n.environment = s.environment AND n.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = $1)
            ORDER BY received_ms DESC, id DESC LIMIT $2
            """, [.text(userId), .integer(Int64(limit))]
        ) { row throws(Row.Failure) in
            let ids = try row.text(7)
            return StoredNotification(
                id: try row.integer(0), received: try row.instant(1), type: try row.text(2), subtype: try row.optionalText(3),
                environment: try row.optionalText(4) == nil ? nil : row.environment(4), signed: try row.bool(5),
                uuid: try row.optionalText(6), originalTransactionIds: ids.isEmpty ? [] : ids.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        }
    }

    /// Keeps the body, then deletes the oldest rows of its kind beyond
    /// ``rejectedNotificationRetention``'s row bound and byte bound. Ids and a kind's `kind_seq`s
    /// are the newest plus one, taken under the table's lock for numbering until the transaction
    /// ends, and the newest row of a kind is always kept: they are consecutive, and the bytes
    /// (bodies and reasons) recorded before each row of the kind keep counting, so both bounds
    /// are index ranges, whatever the table holds.
    public func recordRejectedNotification(kind: RejectedNotification.Kind, reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64 {
        let retention = rejectedNotificationRetention
        let reason = RejectedNotification.keptReason(reason)
        return try inWrite { () throws(StorageError) -> Int64 in
            try lockForNumbering("rejected_notifications")
            let id = try firstRow("SELECT coalesce(max(id), 0) + 1 FROM rejected_notifications", []) { row throws(Row.Failure) in try row.integer(0) } ?? 1
            let last = try firstRow(Self.dialect.statements.lastRejected, [.text(kind.rawValue)]) { row throws(Row.Failure) in
                (try row.integer(0), try row.integer(1))
            }
            let (sequence, before) = ((last?.0 ?? 0) + 1, last?.1 ?? 0)
            try run(
                "INSERT INTO rejected_notifications (id, received_ms, reason, bytes_before, body, kind, kind_seq) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [.integer(id), .integer(now.milliseconds), .text(reason), .integer(before), .bytes(body), .text(kind.rawValue), .integer(sequence)])
            try run(
                "DELETE FROM rejected_notifications WHERE kind = $1 AND kind_seq < $2 AND kind_seq <= $2 - $3",
                [.text(kind.rawValue), .integer(sequence), .integer(Int64(retention.rows))])
            try run(
                "DELETE FROM rejected_notifications WHERE kind = $1 AND kind_seq < $2 AND bytes_before < $3",
                [.text(kind.rawValue), .integer(sequence), .integer(before + Int64(body.count + reason.utf8.count) - Int64(retention.bytes))])
            return id
        }
    }

    public func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification] {
        let sql = withBodies ? Self.dialect.statements.rejectedWithBodies : Self.dialect.statements.rejected
        return try rows(sql, [.integer(Int64(limit))]) { row throws(Row.Failure) in
            RejectedNotification(
                id: try row.integer(0), received: try row.instant(1), reason: try row.text(2), bodyBytes: Int(try row.integer(3)),
                body: withBodies ? try row.bytes(5) : nil, kind: RejectedNotification.Kind(rawValue: try row.text(4)) ?? .signed)
        }
    }
}
