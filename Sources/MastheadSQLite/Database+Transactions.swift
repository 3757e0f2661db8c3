import MastheadSQL

extension Database {
    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled
    /// back when it throws; its error is rethrown as is, and SQLite's failure to begin or commit
    /// as `E(sqlite:)`.
    public func inTransaction<R, E: SQLiteErrorConvertible>(_ body: () throws(E) -> R) throws(E) -> R {
        try transaction(begin: "BEGIN IMMEDIATE", failure: E.init(sqlite:), body)
    }

    /// Runs `body` in a write transaction, committed when it returns and rolled back when it
    /// throws, for a body that throws errors of several types.
    public func inTransaction<R>(_ body: () throws -> R) throws -> R {
        try AnyBodyError.passing(body) { (body) throws(AnyBodyError) in try inTransaction(body) }
    }

    /// Runs `body` inside a savepoint of the open transaction (or of a new deferred one): its
    /// writes are kept when it returns and undone when it throws, the rest of the transaction
    /// going on either way.
    ///
    /// - Returns: `body`'s result or error; its writes were rolled back when it is an error.
    /// - Throws: only when SQLite fails to set, release or roll back to the savepoint: the
    ///   transaction's state is then unknown, and it should be rolled back.
    public func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(SQLiteError) -> Result<R, E> {
        try savepoint(body)
    }

    /// Runs `body` in a read transaction, so that its reads on this connection share one
    /// snapshot (the one the first of them takes); inside the caller's transaction when one is
    /// open. Its error is rethrown as is, and SQLite's failure to begin or end the transaction as
    /// `E(sqlite:)`.
    ///
    /// The transaction ends with `body`: a connection holds no snapshot between calls, so it sees
    /// every commit made before each, and checkpoints can restart the WAL.
    public func readSnapshot<R, E: SQLiteErrorConvertible>(_ body: (borrowing ReadSnapshot) throws(E) -> R) throws(E) -> R {
        let snapshot = ReadSnapshot(database: self)
        if !isAutocommit { return try body(snapshot) }
        return try transaction(begin: "BEGIN", failure: E.init(sqlite:)) { () throws(E) -> R in try body(snapshot) }
    }

    /// Runs `body` in a read transaction whose reads share one snapshot, for a body that throws
    /// errors of several types.
    public func readSnapshot<R>(_ body: (borrowing ReadSnapshot) throws -> R) throws -> R {
        do {
            return try readSnapshot { (snapshot: borrowing ReadSnapshot) throws(AnyBodyError) -> R in
                do { return try body(snapshot) } catch { throw AnyBodyError(error) }
            }
        } catch {
            throw error.error
        }
    }
}

extension Database: SQLConnection {}
