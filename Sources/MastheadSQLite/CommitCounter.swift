import CSQLite

/// SQLite's count of commits to a WAL database, shared by every process that has it open: when
/// it has not moved, nothing was committed by anyone (see ``Database/commitCounter()``).
///
/// Reading it is a load from shared memory, safe from any thread while the counter exists.
public final class CommitCounter: Sendable {
    /// The wal-index header, at the start of the first region of SQLite's shared memory.
    private nonisolated(unsafe) let header: UnsafeRawPointer
    /// Only kept alive (never used): the mapping lasts as long as the connection.
    private nonisolated(unsafe) let database: Database

    /// The size of a wal-index region (`WALINDEX_PGSZ`).
    static let regionBytes: Int32 = 32_768
    /// `iVersion` of the wal-index format this reads (`WALINDEX_MAX_VERSION`).
    static let walIndexVersion: UInt32 = 3_007_000

    /// A counter over `header`, or nil when the header is not of the known format or not initialised.
    init?(header: UnsafeRawPointer, database: Database) {
        // WalIndexHdr: u32 iVersion, u32 unused, u32 iChange, u8 isInit, ... (native byte order).
        guard masthead_load_shared_u32(header) == CommitCounter.walIndexVersion, header.load(fromByteOffset: 12, as: UInt8.self) == 1 else {
            return nil
        }
        self.header = header
        self.database = database
    }

    /// The current count; it wraps around, so only compare it for equality.
    public var value: UInt32 { masthead_load_shared_u32(header + 8) }
}
