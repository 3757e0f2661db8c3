import MastheadPostgreSQL
import MastheadSQLite

/// How far a database's schema has come: the migrations it records, against the migrations this
/// build of Masthead knows for its backend.
///
/// A store opened for writing applies what it lacks; a reader that opens it read-only (never
/// migrating) asks this first, since the statements it runs are this build's.
public struct StoreSchemaVersion: Hashable, Sendable {
    /// The migrations the database records: 0 when it has none (an empty or foreign database).
    public let applied: Int
    /// The migrations this build knows.
    public let known: Int

    /// Whether the database lacks migrations this build's statements rely on.
    public var isBehind: Bool { applied < known }
}

extension SQLiteStore {
    /// The schema version of the database, read without writing anything.
    public func schemaVersion() throws(StorageError) -> StoreSchemaVersion {
        try schemaVersion(
            known: SQLiteSchema.migrator.migrations.count,
            tableCount: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'migrations'")
    }
}

extension PostgreSQLStore {
    /// The schema version of the database, read without writing anything.
    public func schemaVersion() throws(StorageError) -> StoreSchemaVersion {
        try schemaVersion(
            known: PostgreSQLSchema.migrator.migrations.count,
            tableCount: "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'migrations'")
    }
}

extension StorePrimitives {
    /// The migrations recorded (none without a `migrations` table, which `tableCount` counts) against `known`.
    func schemaVersion(known: Int, tableCount: String) throws(StorageError) -> StoreSchemaVersion {
        guard try count(tableCount) > 0 else { return StoreSchemaVersion(applied: 0, known: known) }
        return StoreSchemaVersion(applied: try count("SELECT coalesce(max(version), 0) FROM migrations"), known: known)
    }
}

extension StoreLocation {
    /// Opens the store without write access (a SQLite file must exist; nothing is created or
    /// migrated), with its schema version.
    public func openForReading() throws(StorageError) -> (store: any EntitlementStore, schema: StoreSchemaVersion) {
        switch self {
        case .sqlite(let path):
            let store = try SQLiteStore(path: path, readOnly: true)
            return (store, try store.schemaVersion())
        case .postgreSQL(let url):
            let store = try PostgreSQLStore(url: url, readOnly: true)
            return (store, try store.schemaVersion())
        }
    }
}
