import Foundation
import MastheadSQLite
import Synchronization
import Testing

/// The WAL stays bounded under constant load, even when readers overlap every commit.
struct WALSizeTests {
    @Test func wal_staysBounded_whileReadersOverlapEveryCommit() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let writer = try Database(path: path)
        try writer.execute("PRAGMA synchronous = OFF")  // speed only: checkpoints behave the same
        try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        let stop = Atomic<Bool>(false)
        // A reader in a tight loop of short read transactions, as a busy service's reader is.
        let reader = Thread {
            guard let database = try? Database(path: path) else { return }
            while !stop.load(ordering: .relaxed) {
                try? database.execute("BEGIN; SELECT count(*) FROM pages; COMMIT")
            }
        }
        reader.start()
        defer { stop.store(true, ordering: .relaxed) }
        let body = String(repeating: "p", count: 12_000)  // three pages a commit
        let insert = try writer.prepare("INSERT INTO pages (body) VALUES (?)")
        var largest = 0
        for _ in 0..<4_000 {
            try insert.run([.text(body)])
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            largest = max(largest, size)
        }
        // 12,000 pages were written; the WAL is checkpointed and truncated past 4,000.
        let bound = Int(Database.truncatePages + Database.checkpointPages) * 4_096
        #expect(largest < bound, "the WAL reached \(largest) bytes")
    }
}
