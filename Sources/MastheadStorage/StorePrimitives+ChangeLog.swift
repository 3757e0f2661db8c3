import Masthead

/// The change log, once for every backend.
extension StorePrimitives {
    /// How many change-log entries are kept: a process that has not looked for longer drops its whole cache.
    public static var changeLogLength: Int64 { 100_000 }

    /// Takes the log's lock for numbering until the caller's transaction ends (readers go on),
    /// then numbers each entry the newest id plus one: entries are consecutive and in commit
    /// order, so a reader that has read up to an id never finds an older one committed later.
    /// The backend then announces the write (``StorePrimitives/announceChanges(origin:)``).
    ///
    /// Each user named (once, by the exact bytes of their id) has their history read from the
    /// tables and stored in their `user_histories` row, in the same transaction, so that
    /// ``history(forUser:)`` reads it in one query (``StoredHistory``).
    public func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError) {
        if changes.isEmpty { return }
        try inWrite { () throws(StorageError) in
            try lockForNumbering("changes")
            let insert = try prepare(
                """
                INSERT INTO changes (id, origin, user_id, publication_id, issue_id)
                SELECT coalesce(max(id), 0) + 1, $1, CAST($2 AS text), CAST($3 AS text), CAST($4 AS text) FROM changes
                """)
            var users: Set<ExactKey> = []
            for change in changes {
                switch change {
                case .user(let userId):
                    try run(insert, [.integer(origin), .text(userId), .null, .null])
                    if users.insert(ExactKey(userId)).inserted { try storeHistory(forUser: userId) }
                case .issue(let publicationId, let issueId): try run(insert, [.integer(origin), .null, .text(publicationId), .text(issueId)])
                }
            }
            try announceChanges(origin: origin)
        }
    }

    /// Stores the user's history as the tables have it now in their `user_histories` row.
    func storeHistory(forUser userId: String) throws(StorageError) {
        let history = try historyFromTables(forUser: userId)
        try run(StoredHistorySQL.write, [.text(userId), .bytes(StoredHistory.bytes(history))])
    }

    /// Deletes all but the newest ``changeLogLength`` entries (the newest is always kept, so ids keep growing).
    public func pruneChangeLog() throws(StorageError) {
        try run("DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - $1", [.integer(Self.changeLogLength)])
    }

    public func changeLogPosition() throws(StorageError) -> Int64 {
        try firstRow("SELECT coalesce(max(id), 0) AS position FROM changes", []) { row throws(Row.Failure) in try row.integer(0) } ?? 0
    }

    /// Entries are numbered consecutively in a log whose newest entry is never deleted (see ``ChangeLogRead``).
    public func changes(after position: Int64, notFrom origin: Int64) throws(StorageError) -> ChangeLogRead {
        try inSnapshot { () throws(StorageError) -> ChangeLogRead in
            // One subquery each: SQLite finds a lone min() or max() through the rowid, but
            // scans the whole log for both in one SELECT.
            let bounds = try firstRow(
                "SELECT coalesce((SELECT min(id) FROM changes), 0) AS first, coalesce((SELECT max(id) FROM changes), 0) AS last", []
            ) { row throws(Row.Failure) in (try row.integer(0), try row.integer(1)) }
            let changes = try rows(
                "SELECT user_id, publication_id, issue_id FROM changes WHERE id > $1 AND origin <> $2 ORDER BY id", [.integer(position), .integer(origin)]
            ) { row throws(Row.Failure) in try row.change() }
            return ChangeLogRead(changes: changes, after: position, firstKept: bounds?.0 ?? 0, last: bounds?.1 ?? 0)
        }
    }
}
