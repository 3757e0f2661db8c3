/// Brings a PostgreSQL database's schema up to date: numbered migrations, each applied once,
/// recorded in a `migrations` table (`version`, `applied_at`).
///
/// The whole run holds a session-level advisory lock (`pg_advisory_lock(lockKey)`), so that
/// processes starting together on one database apply each migration once: the second waits for
/// the first, then finds the migrations recorded. Migration *n* (from 1) is the *n*-th script;
/// each runs in one transaction with its record, so a failed migration leaves no trace. Scripts
/// are only ever appended.
public struct PostgreSQLMigrator: Sendable {
    /// The scripts, in order.
    public let migrations: [String]
    /// The advisory lock key every process migrating this schema takes.
    public let lockKey: Int64

    /// A migrator for these scripts under the advisory lock `lockKey`.
    public init(migrations: [String], lockKey: Int64) {
        self.migrations = migrations
        self.lockKey = lockKey
    }

    /// Applies, in order, the migrations `connection`'s database has not recorded yet (creating
    /// the `migrations` table when it has none).
    public func migrate(_ connection: PostgreSQLConnection) throws(PostgreSQLError) {
        try connection.withAdvisoryLock(lockKey) { () throws(PostgreSQLError) in
            try connection.execute("CREATE TABLE IF NOT EXISTS migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            let applied = try connection.singleRow("SELECT coalesce(max(version), 0) AS version FROM migrations", []) { row throws(PostgreSQLError) in
                try row.integer(0)
            }
            for (index, sql) in migrations.enumerated() where index + 1 > applied {
                try connection.inTransaction { () throws(PostgreSQLError) in
                    try connection.execute(sql)
                    try connection.run("INSERT INTO migrations (version) VALUES ($1)", [.integer(Int64(index + 1))])
                }
            }
        }
    }
}
