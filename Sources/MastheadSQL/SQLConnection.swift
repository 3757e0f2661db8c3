/// A connection that executes SQL text: what the SQLite and PostgreSQL wrappers share to run a
/// body in a transaction or a savepoint.
package protocol SQLConnection {
    /// The connection's error.
    associatedtype Failure: Error

    /// Executes `sql`, statements without parameters whose rows are not read.
    func execute(_ sql: String) throws(Failure)
}

extension SQLConnection {
    /// Begins a transaction with `begin`, runs `body` and then `check`, commits when both return
    /// and rolls back when either throws (or the commit fails). Their errors are rethrown as they
    /// are, the connection's failure to begin or commit as `failure(error)`.
    package func transaction<R, E: Error>(
        begin: String, failure: (Failure) -> E, check: () throws(E) -> Void = {}, _ body: () throws(E) -> R
    ) throws(E) -> R {
        do { try execute(begin) } catch { throw failure(error) }
        let result: R
        do {
            result = try body()
            try check()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw failure(error)
        }
        return result
    }

    /// Runs `body` inside a savepoint of the open transaction: its writes are kept when it
    /// returns and undone when it throws, the rest of the transaction going on either way.
    /// - Returns: `body`'s result or error.
    /// - Throws: only when the connection fails to set, release or roll back to the savepoint.
    package func savepoint<R, E: Error>(_ body: () throws(E) -> R) throws(Failure) -> Result<R, E> {
        try execute("SAVEPOINT body")
        let outcome = Result(catching: body)
        if case .failure = outcome { try execute("ROLLBACK TO SAVEPOINT body") }
        try execute("RELEASE SAVEPOINT body")
        return outcome
    }
}
