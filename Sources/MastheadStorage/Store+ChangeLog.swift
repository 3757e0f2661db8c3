extension Store {
    /// How many change-log entries are kept: a process that has not looked for longer drops its whole cache.
    public static let changeLogLength: Int64 = 100_000

    /// Records what a write changed, in the caller's transaction, so it commits (or rolls back) with the write.
    /// - Parameter origin: the writer's own id, so that its readers can skip what it already knows.
    public func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError) {
        let insert = try statement("INSERT INTO changes (origin, user_id, publication_id, issue_id) VALUES (?, ?, ?, ?)")
        for change in changes {
            switch change {
            case .user(let userId): try insert.run([.integer(origin), .text(userId), .null, .null])
            case .issue(let publicationId, let issueId): try insert.run([.integer(origin), .null, .text(publicationId), .text(issueId)])
            }
        }
    }

    /// Deletes all but the newest ``changeLogLength`` entries (the newest is always kept, so ids keep growing).
    public func pruneChangeLog() throws(StorageError) {
        try statement("DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - ?").run([.integer(Store.changeLogLength)])
    }

    /// The position after the newest entry: changes committed later are read from there.
    public func changeLogPosition() throws(StorageError) -> Int64 {
        try statement("SELECT coalesce(max(id), 0) FROM changes").firstRow([]) { $0.integer(0) ?? 0 } ?? 0
    }

    /// The changes recorded after `position` by writers other than `origin`, in one snapshot.
    ///
    /// Entries are numbered consecutively (rowids of a table whose newest row is never deleted),
    /// so a first entry beyond `position + 1`, or a log that ends before `position` (the file was
    /// replaced), means entries were missed.
    public func changes(after position: Int64, notFrom origin: Int64) throws(StorageError) -> ChangeLogRead {
        let bounds = try statement("SELECT coalesce(min(id), 0), coalesce(max(id), 0) FROM changes")
        let entries = try statement("SELECT user_id, publication_id, issue_id FROM changes WHERE id > ? AND origin != ? ORDER BY id")
        return try database.inReadTransaction { () throws(StorageError) -> ChangeLogRead in
            let (first, last) = try bounds.firstRow([]) { ($0.integer(0) ?? 0, $0.integer(1) ?? 0) } ?? (0, 0)
            let changes = try entries.rows([.integer(position), .integer(origin)]) { row -> Change in
                if let userId = row.text(0) { return .user(userId) }
                return .issue(publicationId: row.text(1) ?? "", issueId: row.text(2) ?? "")
            }
            let missed = last < position || (last > position && first > position + 1)
            return ChangeLogRead(changes: changes, position: last, missedSome: missed)
        }
    }
}
