import MastheadPostgreSQL

extension PostgreSQLStore {
    /// Locks the log against other writers until the caller's transaction ends (readers go on),
    /// then numbers each entry the newest id plus one: entries are consecutive and in commit
    /// order, so a reader that has read up to an id never finds an older one committed later.
    /// Notifies ``changesChannel`` with the writer's origin: PostgreSQL delivers it when the
    /// transaction commits (once per transaction and origin), never when it rolls back.
    public func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError) {
        if changes.isEmpty { return }
        try inWrite { () throws(PostgreSQLError) in
            try connection.execute("LOCK TABLE changes IN SHARE ROW EXCLUSIVE MODE")
            let insert = """
                INSERT INTO changes (id, origin, user_id, publication_id, issue_id)
                SELECT coalesce(max(id), 0) + 1, $1, $2::text, $3::text, $4::text FROM changes
                """
            for change in changes {
                switch change {
                case .user(let userId): try connection.run(insert, [.integer(origin), .text(userId), .null, .null])
                case .issue(let publicationId, let issueId): try connection.run(insert, [.integer(origin), .null, .text(publicationId), .text(issueId)])
                }
            }
            try connection.run("SELECT pg_notify($1, $2)", [.text(PostgreSQLStore.changesChannel), .text(String(origin))])
        }
    }

    /// Deletes all but the newest ``changeLogLength`` entries (the newest is always kept, so ids keep growing).
    public func pruneChangeLog() throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.run("DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - $1", [.integer(PostgreSQLStore.changeLogLength)])
        }
    }

    public func changeLogPosition() throws(StorageError) -> Int64 {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.singleRow("SELECT coalesce(max(id), 0) AS position FROM changes", []) { row throws(PostgreSQLError) in try row.integer(0) }
        }
    }

    public func changes(after position: Int64, notFrom origin: Int64) throws(StorageError) -> ChangeLogRead {
        try opening()
        defer { openTransactions -= 1 }
        return try connection.readSnapshot { () throws(StorageError) -> ChangeLogRead in
            try postgreSQL { () throws(PostgreSQLError) in
                let (first, last) = try connection.singleRow(
                    "SELECT coalesce((SELECT min(id) FROM changes), 0) AS first, coalesce((SELECT max(id) FROM changes), 0) AS last", []
                ) { row throws(PostgreSQLError) in (try row.integer(0), try row.integer(1)) }
                let changes = try connection.rows(
                    "SELECT user_id, publication_id, issue_id FROM changes WHERE id > $1 AND origin <> $2 ORDER BY id", [.integer(position), .integer(origin)]
                ) { row throws(PostgreSQLError) -> Change in
                    if let userId = try row.optionalText(0) { return .user(userId) }
                    return .issue(publicationId: try row.text(1), issueId: try row.text(2))
                }
                return ChangeLogRead(changes: changes, after: position, firstKept: first, last: last)
            }
        }
    }
}
