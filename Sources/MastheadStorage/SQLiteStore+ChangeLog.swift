import MastheadSQLite

extension SQLiteStore {
    /// How many change-log entries are kept: a process that has not looked for longer drops its whole cache.
    public static let changeLogLength: Int64 = 100_000

    public func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError) {
        try sqlite { () throws(SQLiteError) in
            let insert = try statement("INSERT INTO changes (origin, user_id, publication_id, issue_id) VALUES (?, ?, ?, ?)")
            for change in changes {
                switch change {
                case .user(let userId): try insert.run([.integer(origin), .text(userId), .null, .null])
                case .issue(let publicationId, let issueId): try insert.run([.integer(origin), .null, .text(publicationId), .text(issueId)])
                }
            }
        }
    }

    /// Deletes all but the newest ``changeLogLength`` entries (the newest is always kept, so ids keep growing).
    public func pruneChangeLog() throws(StorageError) {
        try sqlite { () throws(SQLiteError) in
            try statement("DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - ?").run([.integer(SQLiteStore.changeLogLength)])
        }
    }

    public func changeLogPosition() throws(StorageError) -> Int64 {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT coalesce(max(id), 0) AS position FROM changes").singleRow([]) { row throws(SQLiteError) in try row.integer(0) }
        }
    }

    /// Entries are rowids of a table whose newest row is never deleted, so they are consecutive
    /// (see ``ChangeLogRead``).
    public func changes(after position: Int64, notFrom origin: Int64) throws(StorageError) -> ChangeLogRead {
        try database.readSnapshot { (_: borrowing ReadSnapshot) throws(StorageError) -> ChangeLogRead in
            try sqlite { () throws(SQLiteError) in
                // One subquery each: SQLite finds a lone min() or max() through the rowid, but
                // scans the whole log for both in one SELECT.
                let bounds = "SELECT coalesce((SELECT min(id) FROM changes), 0) AS first, coalesce((SELECT max(id) FROM changes), 0) AS last"
                let (first, last) = try statement(bounds).singleRow([]) { row throws(SQLiteError) in (try row.integer(0), try row.integer(1)) }
                let changes = try statement("SELECT user_id, publication_id, issue_id FROM changes WHERE id > ? AND origin != ? ORDER BY id")
                    .rows([.integer(position), .integer(origin)]) { row throws(SQLiteError) -> Change in
                        if let userId = try row.optionalText(0) { return .user(userId) }
                        return .issue(publicationId: try row.text(1), issueId: try row.text(2))
                    }
                return ChangeLogRead(changes: changes, after: position, firstKept: first, last: last)
            }
        }
    }
}
