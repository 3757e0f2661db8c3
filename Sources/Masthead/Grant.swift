/// Access the publisher gives outside any store (R17): a print subscriber's digital edition,
/// complimentary access, a gift, a make-good issue, a member of an institutional licence.
///
/// A span grant is an interval of its access style on each publication it names, exactly as a
/// purchase's (periods, lapses and the issue unlocked at a period's start treat it as paid time);
/// an issue grant makes issues readable once published, as a single-issue purchase does.
/// ``revokedAt`` ends a grant from that instant on, never retroactively.
public struct Grant: Hashable, Sendable {
    /// What a grant gives.
    public enum Scope: Hashable, Sendable {
        /// Access of `access` style to each of `publications` from ``Grant/start`` to
        /// ``Grant/end`` (open-ended without one); `window` limits streaming access to the latest
        /// issues, as a product's does (R12).
        case span(publications: [String], access: AccessStyle, window: Int?)
        /// These issues of `publication`, each readable once published, from ``Grant/start``.
        case issues(publication: String, issueIds: [String])
    }

    /// The publisher's id of the grant: the same bytes name the same grant.
    public var grantId: String
    /// How the grant a licence gives its member is named: this prefix and the licence id. The
    /// publisher's own grant ids never start with it.
    public static let licenceMembershipPrefix = "licence:"
    /// How the grant a redeemed gift code gives is named: this prefix and the code's stored id
    /// (never the code). The publisher's own grant ids never start with it.
    public static let giftCodePrefix = "gift:"
    /// The prefixes of the grants Masthead names itself (``licenceMembershipPrefix``,
    /// ``giftCodePrefix``): a grant id the publisher writes starting with one is refused.
    public static let reservedPrefixes = [licenceMembershipPrefix, giftCodePrefix]

    /// The reserved prefix (``reservedPrefixes``) an id starts with, if any (by its bytes).
    public static func reservedPrefix(of grantId: String) -> String? {
        reservedPrefixes.first { grantId.utf8.starts(with: $0.utf8) }
    }
    /// Where it comes from: `print`, `comp`, `gift`, `licence`, `makeGood`, or any other word the
    /// publisher uses. It labels the grant and changes nothing else.
    public var source: String
    public var scope: Scope
    /// From when it counts (R10: as of an earlier instant it does not).
    public var start: Instant
    /// When a span grant ends (exclusive); nil for an open-ended one, and for issue grants.
    public var end: Instant?
    /// When the publisher revoked it: from then on it gives nothing more (R17).
    public var revokedAt: Instant?

    /// Creates a grant.
    public init(grantId: String, source: String, scope: Scope, start: Instant, end: Instant? = nil, revokedAt: Instant? = nil) {
        self.grantId = grantId
        self.source = source
        self.scope = scope
        self.start = start
        self.end = end
        self.revokedAt = revokedAt
    }

    /// The publications it names.
    public var publications: [String] {
        switch scope {
        case .span(let publications, _, _): publications
        case .issues(let publication, _): [publication]
        }
    }

    /// Whether it is an issue grant naming this issue (the same bytes).
    func givesIssue(_ issueId: String) -> Bool {
        guard case .issues(_, let issueIds) = scope else { return false }
        return issueIds.contains { $0.sameBytes(as: issueId) }
    }

    /// Whether it names the publication with this id (the same bytes).
    public func names(_ publicationId: String) -> Bool { publications.contains { $0.sameBytes(as: publicationId) } }

    /// The revocation that has happened by `at` (R10), if any.
    public func revocation(asOf at: Instant) -> Instant? {
        guard let revokedAt, revokedAt <= at else { return nil }
        return revokedAt
    }

    /// The largest streaming window a grant may give (R12).
    public static let maxWindow = 1_000_000

    /// Why the grant, as the publisher wrote it, cannot be used, naming the field, or nil when it
    /// can: ids and the source are not empty, the id does not start with one of
    /// ``reservedPrefixes``, a span names at least one publication, once each, and ends after it
    /// starts, a streaming window lies in 1…``maxWindow``, an issue grant names at least one issue,
    /// once each, and has no end.
    public var problem: (field: String, message: String)? {
        if grantId.isEmpty { return ("grantId", "is empty") }
        if let prefix = Grant.reservedPrefix(of: grantId) {
            return ("grantId", "\"\(grantId)\" starts with \"\(prefix)\", kept for the grants of licence memberships and gift codes")
        }
        if source.isEmpty { return ("source", "is empty") }
        switch scope {
        case .span(let publications, let access, let window):
            if publications.isEmpty { return ("publications", "names no publication") }
            if let problem = Grant.repeatedOrEmpty(publications, field: "publications") { return problem }
            if let window, !(1...Grant.maxWindow).contains(window) { return ("window", "must be a whole number from 1 to \(Grant.maxWindow)") }
            if window != nil && access == .archive { return ("window", "applies to streaming access only") }
            if let end, end <= start { return ("end", "must be after start") }
        case .issues(let publication, let issueIds):
            if publication.isEmpty { return ("publication", "is empty") }
            if issueIds.isEmpty { return ("issues", "names no issue") }
            if let problem = Grant.repeatedOrEmpty(issueIds, field: "issues") { return problem }
            if end != nil { return ("end", "an issue grant has no end") }
        }
        return nil
    }

    private static func repeatedOrEmpty(_ ids: [String], field: String) -> (field: String, message: String)? {
        var seen: Set<ExactKey> = []
        for (index, id) in ids.enumerated() {
            if id.isEmpty { return ("\(field)[\(index)]", "is empty") }
            if !seen.insert(ExactKey(id)).inserted { return ("\(field)[\(index)]", "repeats \(id)") }
        }
        return nil
    }

    /// The grant for people: its source in words, its id and its dates, as in
    /// "print subscription g-123, 2020-01-01 – 2020-12-31" (``dates(from:to:)``).
    public var label: String {
        var text = "\(Grant.words(forSource: source)) \(grantId), "
        if case .span = scope { text += Grant.dates(from: start, to: end ?? .distantFuture) } else { text += "from \(Grant.day(start))" }
        if let revokedAt { text += ", revoked \(Grant.day(revokedAt))" }
        return text
    }

    /// The time `[start, end)` for people, by the days it covers: "2020-01-01 – 2020-12-31" for
    /// the year 2020 (an end at midnight names the day before, the last one covered), with the
    /// time where an instant is not midnight UTC; "open-ended" for ``Instant/distantFuture``.
    public static func dates(from start: Instant, to end: Instant) -> String {
        let last: String
        if end == .distantFuture {
            last = "open-ended"
        } else {
            let civil = CivilTime(end)
            let midnight = civil.hour == 0 && civil.minute == 0 && civil.second == 0 && civil.millisecond == 0
            last = midnight && end > start ? String(CivilTime(end.adding(milliseconds: -1)).readable.prefix(10)) : civil.readable
        }
        return "\(day(start)) – \(last)"
    }

    /// A source in words: `print` is "print subscription", `comp` "complimentary access", `gift`
    /// "gift subscription", `licence` "licence", `makeGood` "make-good"; another source is itself
    /// followed by "grant".
    public static func words(forSource source: String) -> String {
        switch source {
        case "print": "print subscription"
        case "comp": "complimentary access"
        case "gift": "gift subscription"
        case "licence": "licence"
        case "makeGood": "make-good"
        default: "\(source) grant"
        }
    }

    /// The day of an instant (`2020-01-01`): the date alone at midnight UTC, with the time otherwise.
    static func day(_ instant: Instant) -> String {
        let civil = CivilTime(instant)
        let text = civil.readable
        return civil.hour == 0 && civil.minute == 0 && civil.second == 0 && civil.millisecond == 0 ? String(text.prefix(10)) : text
    }
}
