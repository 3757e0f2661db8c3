public import Masthead
public import MastheadFormats
import Glibc

/// What one audit decides, from what, and how it writes: the value a caller fills in before
/// ``Audit/init(_:)``.
public struct AuditConfiguration: Sendable {
    /// Where the users come from.
    public enum Source: Sendable, Equatable {
        /// A receipts JSON lines file, one user per line (`-` is standard input).
        case receipts(path: String)
        /// The companion service's SQLite database, read-only in one snapshot.
        case database(path: String)
    }

    /// The catalog as loaded; with a database, the issues published through the service are added.
    public var catalog: Catalog
    /// Where the users come from.
    public var source: Source
    /// The as-of instants, in the order given; one result per instant.
    public var instants: [Instant]
    /// Only transactions of this environment count (R14).
    public var environment: Environment
    /// How the signed data of a line (`signedTransactions`, `signedRenewalInfos`) is verified,
    /// and the app it must be for; nil when no app is configured, and then a signed line stops
    /// the audit (``AuditError/signedDataWithoutApp(location:)``).
    public var signedData: SignedDataVerifier?
    /// JSON lines or CSV.
    public var format: AuditFormat
    /// What the content-delivery system served, to reconcile; nil for no reconciliation.
    public var grantsPath: String?
    /// Only the users of this part, in the input and in the grants.
    public var shard: Shard?
    /// Whether the findings are kept for the HTML report (at most ``reportedLines`` lines listed per group).
    public var collectsFindings: Bool
    /// Auditors deciding at the same time (one per core by default).
    public var workers: Int
    /// The longest receipts or grants line read, in bytes before its newline; a longer receipts
    /// line is rejected unread (its bytes skipped), a longer grants line stops the audit.
    public var maxLineBytes: Int

    /// The default line limit, 64 MiB: far above any real receipts line.
    public static let defaultMaxLineBytes = 64 << 20

    /// Lines with findings listed in the HTML report, shared among the groups (instant, kind,
    /// product); the output holds them all.
    public static let reportedLines = 1000
    /// Lines listed for a group at least, however many groups there are.
    public static let reportedLinesPerGroup = 10

    /// One worker per online core, at most 8.
    public static var defaultWorkers: Int { max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }

    /// A configuration; everything but the catalog, source and instants has its default.
    public init(
        catalog: Catalog, source: Source, instants: [Instant], environment: Environment = .production, signedData: SignedDataVerifier? = nil,
        format: AuditFormat = .jsonl, grantsPath: String? = nil, shard: Shard? = nil, collectsFindings: Bool = false, workers: Int = AuditConfiguration.defaultWorkers,
        maxLineBytes: Int = AuditConfiguration.defaultMaxLineBytes
    ) {
        self.catalog = catalog
        self.source = source
        self.instants = instants
        self.environment = environment
        self.signedData = signedData
        self.format = format
        self.grantsPath = grantsPath
        self.shard = shard
        self.collectsFindings = collectsFindings
        self.workers = workers
        self.maxLineBytes = maxLineBytes
    }
}
