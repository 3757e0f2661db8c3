import MastheadPostgreSQL

extension PostgreSQLStore {
    /// Opens a server-side cursor over every user id in id order (byte order of their UTF-8), in
    /// the caller's transaction (``readSnapshot(_:)``), whose snapshot it reads; it closes when the
    /// transaction ends. Read it with ``fetchUserIds(_:)``: the server keeps the walk, so the
    /// reader holds one batch at a time.
    public func declareUserCursor() throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.execute("DECLARE masthead_users NO SCROLL CURSOR FOR SELECT user_id FROM users ORDER BY user_id")
        }
    }

    /// The next `count` user ids of the cursor ``declareUserCursor()`` opened; empty at its end.
    public func fetchUserIds(_ count: Int) throws(StorageError) -> [String] {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.rows("FETCH FORWARD \(max(count, 1)) FROM masthead_users", []) { row throws(PostgreSQLError) in try row.text(0) }
        }
    }
}
