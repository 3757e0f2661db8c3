import Foundation

/// The two implementations of the service's store: the behaviour tests run against each.
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgreSQL

    /// Every backend, or SQLite alone when the developer left PostgreSQL out (`MASTHEAD_SKIP_POSTGRES=1`).
    public static let tested: [StoreBackend] = TestPostgreSQL.isSkipped ? [.sqlite] : allCases

    public var description: String { rawValue }

    /// A fresh empty database of this backend: a new temporary SQLite file's path, or a new
    /// PostgreSQL database's URL on the test cluster.
    public func freshDatabase(prefix: String = "masthead-test") throws -> String {
        switch self {
        case .sqlite: FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite").path
        case .postgreSQL: try TestPostgreSQL.freshDatabase()
        }
    }
}
