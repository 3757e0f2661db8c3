import Foundation
import Masthead
import MastheadSQLite
import MastheadStorage
import Testing

/// A second connection reading while another writes, as the service's reader does: every read
/// sees every commit made before it, and the reader never holds the WAL open.
struct ReaderTests {
    static let now = Instant(milliseconds: 5)

    static func link(_ store: any EntitlementStore, _ index: Int, receipt: String? = nil) throws {
        _ = try store.link(
            userId: "u\(index)", transactions: [StoreTests.transaction("t\(index)", from: 0, to: 10)], latestReceipt: receipt, restore: .transfer, now: now)
    }

    @Test func reader_seesCommitsMadeAfterItsLastRead() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let writer = try SQLiteStore(path: path)
        let reader = try SQLiteStore(path: path)
        try Self.link(writer, 0)
        #expect(try reader.userExists("u0"))
        try Self.link(writer, 1)
        try writer.save(transactions: [StoreTests.transaction("d", from: 100, to: 200)], renewals: [])
        #expect(try reader.userCount() == 2)
        #expect(try reader.refreshDue(from: Instant(milliseconds: 150), to: Instant(milliseconds: 250)).map(\.originalTransactionId) == ["d"])
    }

    /// Checkpoints can restart the WAL only when no reader holds a snapshot: with one held, the
    /// WAL grows by every commit (tens of MB here).
    @Test func wal_staysNearCheckpointSize_whileAReaderReadsAfterEveryCommit() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let writer = try SQLiteStore(path: path)
        try writer.database.execute("PRAGMA synchronous = OFF")  // speed only: checkpoints behave the same
        try writer.database.execute("PRAGMA wal_autocheckpoint = 100")  // 100 pages of 4 KiB
        let reader = try SQLiteStore(path: path)
        let receipt = String(repeating: "R", count: 8000)
        for index in 0..<600 {
            try Self.link(writer, index, receipt: receipt)
            #expect(try reader.userExists("u\(index)"))
            _ = try reader.history(forUser: "u\(index)")
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(size < 1_000_000, "WAL is \(size) bytes")
    }
}
