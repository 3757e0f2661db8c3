import CLibPQ
import MastheadSQL

extension PostgreSQLConnection {
    /// Runs `body` in a transaction (`BEGIN`, read committed): committed when it returns, rolled
    /// back when it throws; its error is rethrown as is, and PostgreSQL's failure to begin or
    /// commit as `E(postgreSQL:)`. A body that returns with the transaction aborted (a failed
    /// statement whose error it swallowed) is rolled back and reported, never taken for a commit.
    public func inTransaction<R, E: PostgreSQLErrorConvertible>(_ body: () throws(E) -> R) throws(E) -> R {
        try transaction(begin: "BEGIN", failure: E.init(postgreSQL:), check: checkNotAborted, body)
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws,
    /// for a body that throws errors of several types.
    public func inTransaction<R>(_ body: () throws -> R) throws -> R {
        try AnyBodyError.passing(body) { (body) throws(AnyBodyError) in try inTransaction(body) }
    }

    /// Runs `body` inside a savepoint of the open transaction: its writes are kept when it
    /// returns and undone when it throws (a failed statement included), the rest of the
    /// transaction going on either way.
    /// - Returns: `body`'s result or error.
    /// - Throws: only when PostgreSQL fails to set, release or roll back to the savepoint.
    public func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(PostgreSQLError) -> Result<R, E> {
        try savepoint(body)
    }

    /// Runs `body` so that its reads share one snapshot: in a `REPEATABLE READ READ ONLY`
    /// transaction that ends with it, or inside the caller's transaction when one is open.
    public func readSnapshot<R, E: PostgreSQLErrorConvertible>(_ body: () throws(E) -> R) throws(E) -> R {
        if !isIdle { return try body() }
        return try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", failure: E.init(postgreSQL:), check: checkNotAborted, body)
    }

    /// Runs `body` in a read snapshot, for a body that throws errors of several types.
    public func readSnapshot<R>(_ body: () throws -> R) throws -> R {
        try AnyBodyError.passing(body) { (body) throws(AnyBodyError) in try readSnapshot(body) }
    }

    /// Runs `body` holding the session-level advisory lock `key` (`pg_advisory_lock`), waiting
    /// for it as long as another session holds it; the lock is released when `body` ends.
    public func withAdvisoryLock<R, E: PostgreSQLErrorConvertible>(_ key: Int64, _ body: () throws(E) -> R) throws(E) -> R {
        do { try run("SELECT pg_advisory_lock($1)", [.integer(key)]) } catch { throw E(postgreSQL: error) }
        defer { _ = try? run("SELECT pg_advisory_unlock($1)", [.integer(key)]) }
        return try body()
    }

    /// Throws when the transaction is aborted (a failed statement whose error the body
    /// swallowed): it is rolled back and reported, never taken for a commit.
    private func checkNotAborted<E: PostgreSQLErrorConvertible>() throws(E) {
        guard PQtransactionStatus(handle) == PQTRANS_INERROR else { return }
        throw E(postgreSQL: .failed(sqlState: "25P02", message: "a statement failed inside the transaction, which was rolled back", sql: "COMMIT"))
    }
}

extension PostgreSQLConnection: SQLConnection {}
