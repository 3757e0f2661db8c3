import Foundation

/// Fresh database files for tests, each removed with its WAL and shared memory.
enum TemporaryFile {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("masthead-sqlite-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
