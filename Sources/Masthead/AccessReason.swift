/// Why an issue is readable (R16). Periods are named by their index in
/// ``PublicationEntitlement/periods``.
public enum AccessReason: Hashable, Sendable {
    /// Published while an archive period was active (R11).
    case publishedDuringPeriod(period: Int)
    /// The latest issue when an archive period started: unlocked by the purchase (R11).
    case unlockedAtPeriodStart(period: Int)
    /// A streaming period covers the as-of instant (R12); `window` limits it to the latest issues.
    case streaming(period: Int, window: Int?)
    /// Bought on its own (R13).
    case singlePurchase(transactionId: String)
    /// Given by the publisher's issue grant (R17).
    case granted(grantId: String, source: String)
    /// A free issue (R13).
    case free

    /// Whether `other` is the same reason with the same ids byte for byte (`==` compares the
    /// ids as Swift strings, which takes two Unicode spellings of one name for one).
    public func sameBytes(as other: AccessReason) -> Bool {
        switch (self, other) {
        case (.singlePurchase(let mine), .singlePurchase(let theirs)): mine.sameBytes(as: theirs)
        case (.granted(let mine, let mySource), .granted(let theirs, let theirSource)): mine.sameBytes(as: theirs) && mySource.sameBytes(as: theirSource)
        case (.singlePurchase, _), (.granted, _), (_, .singlePurchase), (_, .granted): false
        default: self == other
        }
    }

    /// A stable name for the kind of reason, as written in JSON output.
    public var name: String {
        switch self {
        case .publishedDuringPeriod: "publishedDuringPeriod"
        case .unlockedAtPeriodStart: "unlockedAtPeriodStart"
        case .streaming: "streaming"
        case .singlePurchase: "singlePurchase"
        case .granted: "granted"
        case .free: "free"
        }
    }
}

/// Why an issue is not readable (R16).
public enum Denial: Hashable, Sendable {
    /// The issue is published after the as-of instant (R10).
    case notYetPublished
    /// The user has no subscription, purchase or grant that gives this issue.
    case notSubscribed
    /// The publisher's grant that gave it was revoked by the as-of instant (R17): an issue grant
    /// naming it, or a span grant whose revocation began the lapse it was published in (archive)
    /// or that ended streaming access.
    case grantRevoked(grantId: String, source: String, revokedAt: Instant)
    /// The purchase that would have granted it was refunded (R5.1).
    case refunded(transactionId: String)
    /// The purchase that would have granted it ended at a revocation before the issue was
    /// published (R5.3): a prorated refund or a Family Sharing revocation, with the share revoked
    /// in thousandths of a percent when Apple gave it.
    case endedByRevocation(transactionId: String, revokedAt: Instant, revocationType: RevocationType, percentage: Int32?)
    /// Published before the first archive period started, and not the issue it unlocked (R11).
    case publishedBeforeSubscription(firstPeriodStart: Instant)
    /// Published during a lapse between archive periods, or after the last one ended (`lapseEnd` nil) (R8, R11).
    case publishedDuringLapse(lapseStart: Instant, lapseEnd: Instant?)
    /// No streaming period covers the as-of instant (R12); `since` is when the last one ended.
    case streamingInactive(since: Instant?)
    /// A streaming period is active but the issue is older than the product's window (R12).
    case outsideStreamingWindow(window: Int)

    /// A stable name for the kind of denial, as written in JSON output.
    public var name: String {
        switch self {
        case .notYetPublished: "notYetPublished"
        case .notSubscribed: "notSubscribed"
        case .grantRevoked: "grantRevoked"
        case .refunded: "refunded"
        case .endedByRevocation: "endedByRevocation"
        case .publishedBeforeSubscription: "publishedBeforeSubscription"
        case .publishedDuringLapse: "publishedDuringLapse"
        case .streamingInactive: "streamingInactive"
        case .outsideStreamingWindow: "outsideStreamingWindow"
        }
    }
}

/// An issue the user may read, with every reason that applies (the first is the main one).
public struct ReadableIssue: Hashable, Sendable {
    public var issue: Issue
    public var reasons: [AccessReason]

    /// Creates a readable issue.
    public init(issue: Issue, reasons: [AccessReason]) {
        self.issue = issue
        self.reasons = reasons
    }
}

/// The decision on one issue: readable with its reasons, or not with the denial.
public enum IssueAccess: Hashable, Sendable {
    case readable([AccessReason])
    case notReadable(Denial)

    /// Whether the issue may be read.
    public var isReadable: Bool {
        if case .readable = self { true } else { false }
    }
}
