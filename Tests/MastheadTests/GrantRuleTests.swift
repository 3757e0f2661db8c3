import Masthead
import Testing

/// R17: the publisher's grants — spans that are intervals like a purchase's, issue grants,
/// revocation from an instant on — beside App Store purchases, in one answer.
struct GrantRuleTests {
    static func span(
        _ id: String, _ source: String = "print", access: AccessStyle = .archive, window: Int? = nil, from start: String, to end: String?,
        revoked: String? = nil, publications: [String] = ["the-monthly"]
    ) -> Grant {
        Grant(
            grantId: id, source: source, scope: .span(publications: publications, access: access, window: window), start: Mock.instant(start),
            end: end.map(Mock.instant), revokedAt: revoked.map(Mock.instant))
    }

    static func issues(_ id: String, _ issueIds: [String], from start: String, revoked: String? = nil) -> Grant {
        Grant(
            grantId: id, source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: issueIds), start: Mock.instant(start),
            revokedAt: revoked.map(Mock.instant))
    }

    static func evaluate(
        _ transactions: [Transaction] = [], grants: [Grant], at: String, environment: Environment = .production
    ) -> PublicationEntitlement {
        let publication = Mock.monthly()
        return Mock.engine(publication).evaluate(
            PurchaseHistory(transactions: transactions, grants: grants), publication: publication, at: Mock.instant(at), environment: environment)
    }

    static func months(_ months: ClosedRange<Int>) -> [String] { months.map { String(format2020: $0) } }

    @Test func R17_archiveSpan_isAPeriod_unlocksLatestIssueAtStart_keepsWhatWasPublished() {
        let grant = Self.span("g-1", from: "2020-03-15T00:00", to: "2020-06-15T00:00")
        let during = Self.evaluate(grants: [grant], at: "2020-05-10T00:00")
        #expect(during.status.state == .active)
        #expect(during.periods.map { [$0.start, $0.end] } == [[Mock.instant("2020-03-15T00:00"), Mock.instant("2020-06-15T00:00")]])
        #expect(during.periods[0].intervals.map(\.kind) == [.grant])
        // March (published Mar 1) is the latest issue at the grant's start: unlocked, as a purchase's would be (R11).
        #expect(during.readable.first?.reasons == [.unlockedAtPeriodStart(period: 0)])
        #expect(during.readableIssueIds == Self.months(3...5))
        let after = Self.evaluate(grants: [grant], at: "2020-12-01T00:00")
        #expect(after.status.state == .expired)
        #expect(after.readableIssueIds == Self.months(3...6))
        #expect(after.access(toIssue: "2020-07") == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2020-06-15T00:00"), lapseEnd: nil)))
    }

    @Test func R17_R10_boundaries_startCounts_endDoesNot() {
        let grant = Self.span("g-1", from: "2020-03-01T00:00", to: "2020-05-01T00:00")
        // As of an instant before the start the grant does not count, but the publication is the user's.
        let before = Self.evaluate(grants: [grant], at: "2020-02-29T23:59:59.999")
        #expect(before.periods.isEmpty && before.readable.isEmpty && before.status.state == .none)
        // Exactly at the start: active, and March, published at that instant, is the latest issue
        // at the start (R11), so February is not.
        let atStart = Self.evaluate(grants: [grant], at: "2020-03-01T00:00")
        #expect(atStart.status.state == .active)
        #expect(atStart.readableIssueIds == ["2020-03"])
        // Exactly at the end: over; May, published at that instant, is not the grant's.
        let atEnd = Self.evaluate(grants: [grant], at: "2020-05-01T00:00")
        #expect(atEnd.status.state == .expired)
        #expect(atEnd.readableIssueIds == ["2020-03", "2020-04"])
        let users = Mock.engine().evaluate(PurchaseHistory(grants: [grant]), at: Mock.instant("2020-01-15T00:00"))
        #expect(users.publications.map(\.publication.id) == ["the-monthly"])
    }

    @Test func R17_openEnded_neverEnds() {
        let grant = Self.span("g-comp", "comp", from: "2020-02-10T00:00", to: nil)
        let result = Self.evaluate(grants: [grant], at: "2020-12-31T00:00")
        #expect(result.status.state == .active)
        #expect(result.periods.map(\.end) == [.distantFuture])
        #expect(result.readableIssueIds == Self.months(2...12))
        #expect(result.lapses.isEmpty)
    }

    @Test func R17_revokedAfterStart_archiveKeepsWhatWasPublished_streamingStops() {
        let archive = Self.span("g-1", from: "2020-02-10T00:00", to: nil, revoked: "2020-05-20T00:00")
        // Before the revocation it has not happened (R10).
        #expect(Self.evaluate(grants: [archive], at: "2020-05-19T00:00").status.state == .active)
        let after = Self.evaluate(grants: [archive], at: "2020-09-01T00:00")
        #expect(after.status.state == .expired)
        #expect(after.readableIssueIds == Self.months(2...5))
        #expect(after.periods.map(\.end) == [Mock.instant("2020-05-20T00:00")])

        let streaming = Self.span("g-2", access: .streaming, from: "2020-02-10T00:00", to: nil, revoked: "2020-05-20T00:00")
        #expect(Self.evaluate(grants: [streaming], at: "2020-05-19T00:00").readableIssueIds == Self.months(1...5))
        let stopped = Self.evaluate(grants: [streaming], at: "2020-05-20T00:00")
        #expect(stopped.readable.isEmpty)
        #expect(stopped.status.state == .expired)
        #expect(
            stopped.access(toIssue: "2020-03")
                == .notReadable(.grantRevoked(grantId: "g-2", source: "print", revokedAt: Mock.instant("2020-05-20T00:00"))))
    }

    @Test func R17_revokedBeforeStart_givesNothing() {
        let grant = Self.span("g-1", from: "2020-03-01T00:00", to: "2020-09-01T00:00", revoked: "2020-02-01T00:00")
        let result = Self.evaluate(grants: [grant], at: "2020-06-01T00:00")
        #expect(result.readable.isEmpty && result.periods.isEmpty && result.status.state == .none)
        #expect(result.access(toIssue: "2020-04") == .notReadable(.notSubscribed))
    }

    @Test func R17_issueGrant_readableOncePublished_fromStart_untilRevoked() {
        let grant = Self.issues("mg-7", ["2020-03", "2020-08"], from: "2020-04-02T09:00", revoked: "2020-10-01T00:00")
        #expect(Self.evaluate(grants: [grant], at: "2020-04-02T08:59").readable.isEmpty)
        let given = Self.evaluate(grants: [grant], at: "2020-04-02T09:00")
        #expect(given.readable.map(\.reasons) == [[.granted(grantId: "mg-7", source: "makeGood")]])
        #expect(given.readableIssueIds == ["2020-03"])
        // August once published; an issue grant makes no period and no status (as a single issue).
        let later = Self.evaluate(grants: [grant], at: "2020-08-01T00:00")
        #expect(later.readableIssueIds == ["2020-03", "2020-08"])
        #expect(later.periods.isEmpty && later.status.state == .none)
        let revoked = Self.evaluate(grants: [grant], at: "2020-10-01T00:00")
        #expect(revoked.readable.isEmpty)
        #expect(
            revoked.access(toIssue: "2020-03")
                == .notReadable(.grantRevoked(grantId: "mg-7", source: "makeGood", revokedAt: Mock.instant("2020-10-01T00:00"))))
        #expect(revoked.access(toIssue: "2020-03").map { if case .notReadable(let denial) = $0 { denial.explanation } else { "" } }
            == "make-good mg-7 was revoked on 2020-10-01 00:00")
    }

    @Test func R17_R8_grantBridgesALapseBetweenPurchases_onePeriod() {
        let purchases = [
            Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-04-10T00:00"),
            Mock.renewal("b", "monthly", "2020-06-17T00:00", "2020-07-17T00:00", original: "a"),
        ]
        let withoutGrant = Self.evaluate(purchases, grants: [], at: "2020-12-01T00:00")
        #expect(withoutGrant.periods.count == 2)
        #expect(!withoutGrant.readableIssueIds.contains("2020-05"))
        let bridge = Self.span("g-print", from: "2020-04-10T00:00", to: "2020-06-17T00:00")
        let bridged = Self.evaluate(purchases, grants: [bridge], at: "2020-12-01T00:00")
        #expect(bridged.periods.count == 1)
        #expect(bridged.periods[0].intervals.map(\.kind) == [.paid, .grant, .paid])
        #expect(bridged.lapses.count == 1 && bridged.lapses[0].end == nil)
        #expect(bridged.readableIssueIds == Self.months(2...7))
        // May is explained by the grant, named with its source and dates.
        let reason = bridged.readable.first { $0.issue.id == "2020-05" }!.reasons[0]
        #expect(reason.explanation(of: Mock.monthly().issues[4], in: bridged) == "published during period #0, under print subscription g-print, 2020-04-10 – 2020-06-16")
        // The grant ends at midnight on 17 June: its last day is the 16th.
        #expect(bridge.label == "print subscription g-print, 2020-04-10 – 2020-06-16")
    }

    @Test func R17_overlappingGrantAndPurchase_join_andStatusSpeaksOfTheSubscription() {
        let purchase = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-04-10T00:00")
        let grant = Self.span("g-1", "gift", from: "2020-03-01T00:00", to: "2020-05-15T00:00")
        let result = Self.evaluate([purchase], grants: [grant], at: "2020-05-01T00:00")
        #expect(result.periods.map { [$0.start, $0.end] } == [[Mock.instant("2020-02-10T00:00"), Mock.instant("2020-05-15T00:00")]])
        #expect(result.status.state == .active)
        #expect(result.status.currentProductId == "monthly")
        #expect(result.readableIssueIds == Self.months(2...5))
    }

    @Test func R17_R12_streamingGrant_window_andLargestWindowWins() {
        let grant = Self.span("g-1", access: .streaming, window: 2, from: "2020-01-15T00:00", to: nil)
        #expect(Self.evaluate(grants: [grant], at: "2020-06-15T00:00").readableIssueIds == ["2020-05", "2020-06"])
        // A streaming purchase with a larger window covering the instant: its window wins (R12).
        let reader6 = Mock.renewal("r", "reader6", "2020-06-01T00:00", "2020-07-01T00:00")
        #expect(Self.evaluate([reader6], grants: [grant], at: "2020-06-15T00:00").readableIssueIds == Self.months(1...6))
    }

    @Test func R17_grantsCountInEveryEnvironment_andIdsAreExactBytes() {
        let precomposed = Self.issues("caf\u{E9}", ["2020-03"], from: "2020-01-01T00:00")
        let decomposed = Self.issues("cafe\u{301}", ["2020-04"], from: "2020-01-01T00:00", revoked: "2020-02-01T00:00")
        let history = PurchaseHistory(grants: [precomposed, decomposed])
        // Two spellings are two grants: the revocation of one does not touch the other.
        #expect(history.grants.count == 2)
        let sandbox = Self.evaluate(grants: [precomposed, decomposed], at: "2020-06-01T00:00", environment: .sandbox)
        #expect(sandbox.readableIssueIds == ["2020-03"])
        // A later grant with the same bytes replaces the earlier (a correction).
        var corrected = history
        corrected.merge(grants: [Self.issues("caf\u{E9}", ["2020-05"], from: "2020-01-01T00:00")])
        #expect(corrected.grants.count == 2)
        let publication = Mock.monthly()
        let answer = Mock.engine(publication).evaluate(corrected, publication: publication, at: Mock.instant("2020-06-01T00:00"))
        #expect(answer.readableIssueIds == ["2020-05"])
    }

    @Test func R17_grantIdLikeATransactionId_isNotTheTransaction() {
        // A grant and a refunded purchase share the id "1000": the grant's time is not the refund's.
        let refunded = Mock.renewal("1000", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-02-20T00:00")
        let grant = Self.span("1000", from: "2020-05-10T00:00", to: "2020-06-10T00:00")
        let result = Self.evaluate([refunded], grants: [grant], at: "2020-07-01T00:00")
        #expect(result.readableIssueIds == ["2020-05", "2020-06"])
        #expect(result.refunded.map(\.transactionId) == ["1000"])
        #expect(result.access(toIssue: "2020-03") == .notReadable(.refunded(transactionId: "1000")))
    }

    @Test func R17_problems_nameTheField() {
        #expect(Self.span("g", from: "2020-03-01T00:00", to: "2020-03-01T00:00").problem?.field == "end")
        #expect(Self.span("g", from: "2020-03-01T00:00", to: nil, publications: []).problem?.field == "publications")
        #expect(Self.span("g", from: "2020-03-01T00:00", to: nil, publications: ["a", "a"]).problem?.field == "publications[1]")
        #expect(Self.span("g", access: .archive, window: 3, from: "2020-03-01T00:00", to: nil).problem?.field == "window")
        #expect(Self.span("g", access: .streaming, window: 0, from: "2020-03-01T00:00", to: nil).problem?.field == "window")
        #expect(Self.issues("g", [], from: "2020-03-01T00:00").problem?.field == "issues")
        #expect(Self.span("", from: "2020-03-01T00:00", to: nil).problem?.field == "grantId")
        #expect(Self.span("gift:1", from: "2020-03-01T00:00", to: nil).problem?.field == "grantId")
        #expect(Self.span("licence:acme", from: "2020-03-01T00:00", to: nil).problem?.field == "grantId")
        #expect(Self.span("g", access: .streaming, window: Grant.maxWindow + 1, from: "2020-03-01T00:00", to: nil).problem?.field == "window")
        #expect(Self.span("g", from: "2020-03-01T00:00", to: "2020-04-01T00:00").problem == nil)
    }

    @Test func R17_R15_statusNamesTheCoveringGrant_besideTheSubscription() {
        let purchase = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-04-10T00:00")
        let comps = [
            Self.span("g-short", "comp", from: "2020-04-01T00:00", to: "2020-06-01T00:00"),
            Self.span("g-long", "print", from: "2020-05-01T00:00", to: "2020-09-01T00:00"),
        ]
        let both = Self.evaluate([purchase], grants: comps, at: "2020-05-15T00:00")
        #expect(both.status.state == .active)
        // The one ending last; the subscription's own fields still speak of the App Store purchase.
        #expect(both.status.grantId == "g-long" && both.status.grantSource == "print")
        #expect(both.status.currentProductId == "monthly")
        let paidOnly = Self.evaluate([purchase], grants: comps, at: "2020-03-15T00:00")
        #expect(paidOnly.status.grantId == nil && paidOnly.status.grantSource == nil)
        #expect(Self.evaluate([purchase], grants: comps, at: "2020-09-01T00:00").status.grantId == nil)
    }

    @Test func R17_grantsNamingWhatTheCatalogDoesNotKnow_areReported() {
        let unknownPublication = Self.span("g-daily", from: "2020-01-01T00:00", to: nil, publications: ["the-daily"])
        let unknownIssue = Grant(
            grantId: "mg-9", source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: ["2020-03", "2020-99"]),
            start: Mock.instant("2020-01-01T00:00"))
        let known = Self.span("g-ok", from: "2020-01-01T00:00", to: nil)
        let answer = Mock.engine().evaluate(PurchaseHistory(grants: [unknownPublication, unknownIssue, known]), at: Mock.instant("2020-06-01T00:00"))
        #expect(answer.unknownGrantIds == ["g-daily", "mg-9"])
        #expect(answer.publications.map(\.publication.id) == ["the-monthly"])
        // The known issue of a grant that also names an unknown one is still given.
        #expect(answer.publications[0].readable.contains { $0.issue.id == "2020-03" && $0.reasons.contains(.granted(grantId: "mg-9", source: "makeGood")) })
    }
}
