import Foundation
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// A fresh empty database of one backend: a temporary SQLite file, or a new PostgreSQL database
/// on the test cluster. Stores opened on it are new connections.
final class StoreFixture {
    let backend: StoreBackend
    /// The SQLite file's path or the PostgreSQL database's URL.
    let location: String

    init(_ backend: StoreBackend) throws {
        self.backend = backend
        location = try backend.freshDatabase()
    }

    /// A store on the database (applying migrations), keeping `retention` rejected notifications.
    func open(retention: RejectedNotificationRetention = .standard) throws -> any EntitlementStore {
        switch backend {
        case .sqlite:
            let store = try SQLiteStore(path: location)
            store.rejectedNotificationRetention = retention
            return store
        case .postgreSQL:
            let store = try PostgreSQLStore(url: location)
            store.rejectedNotificationRetention = retention
            return store
        }
    }

    /// A store that applies no migrations and writes nothing, beside a writer.
    func openReadOnly() throws -> any EntitlementStore {
        switch backend {
        case .sqlite: try SQLiteStore(path: location, readOnly: true)
        case .postgreSQL: try PostgreSQLStore(url: location, readOnly: true)
        }
    }

    /// Brings the empty database to the schema before a migration: SQLite's first `sqlite`
    /// migrations or PostgreSQL's first `postgreSQL`; answers how many the backend has now, which
    /// opening a store then applies.
    @discardableResult
    func migrate(sqlite: Int, postgreSQL: Int) throws -> Int {
        switch backend {
        case .sqlite:
            _ = try MigrationTests.database(at: location, migrations: sqlite)
            return SQLiteSchema.migrator.migrations.count
        case .postgreSQL:
            let previous = PostgreSQLMigrator(migrations: Array(PostgreSQLSchema.migrator.migrations.prefix(postgreSQL)), lockKey: PostgreSQLSchema.migrationLock)
            try previous.migrate(PostgreSQLConnection(location))
            return PostgreSQLSchema.migrator.migrations.count
        }
    }

    /// Runs SQL that answers no rows, on a connection of its own.
    func execute(_ sql: String) throws {
        switch backend {
        case .sqlite: try Database(path: location).execute(sql)
        case .postgreSQL: try PostgreSQLConnection(location).execute(sql)
        }
    }

    /// The first column of the first row of `sql`, as SQLite's values (a PostgreSQL boolean as 0 or 1).
    func scalar(_ sql: String) throws -> SQLValue? {
        switch backend {
        case .sqlite: return try Database(path: location).scalar(sql)
        case .postgreSQL:
            switch try PostgreSQLConnection(location).scalar(sql) {
            case nil: return nil
            case .null: return .null
            case .integer(let number): return .integer(number)
            case .text(let text): return .text(text)
            case .bytes(let bytes): return .blob(bytes)
            case .bool(let flag): return .bool(flag)
            }
        }
    }

    /// Removes the SQLite file; a PostgreSQL database goes with the test cluster.
    func remove() {
        if backend == .sqlite { StoreTests.remove(location) }
    }
}
