/// Brings a database's schema up to date: numbered migrations, each applied once, recorded in a
/// `migrations` table (`version`, `applied_ms`).
///
/// Migration *n* (from 1) is the *n*-th SQL script; each runs in its own transaction together
/// with its record, so a failed migration leaves no trace and is tried again at the next opening.
/// Migrations are only ever appended: a script that has been applied somewhere is never edited.
public struct Migrator: Sendable {
    /// The scripts, in order.
    public let migrations: [String]

    /// A migrator for these scripts.
    public init(migrations: [String]) {
        self.migrations = migrations
    }

    /// Applies, in order, the migrations `database` has not recorded yet (creating the
    /// `migrations` table when it has none).
    public func migrate(_ database: Database) throws(SQLiteError) {
        try database.execute("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)")
        let applied = try database.prepare("SELECT coalesce(max(version), 0) AS version FROM migrations").singleRow([]) { row throws(SQLiteError) in
            try row.integer(0)
        }
        for (index, sql) in migrations.enumerated() where index + 1 > applied {
            try database.inTransaction { () throws(SQLiteError) in
                try database.execute(sql)
                try database.prepare("INSERT INTO migrations (version, applied_ms) VALUES (?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))")
                    .run([.integer(Int64(index + 1))])
            }
        }
    }
}
