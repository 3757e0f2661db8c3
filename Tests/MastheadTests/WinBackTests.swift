import Masthead
import Testing

/// A win-back offer (Apple's `offerType` 4) redeemed after a lapse is a resubscription like any
/// other: a new period that unlocks the latest issue again (R8, R11), or streams again (R12).
/// The offer and its terms only label the interval.
struct WinBackTests {
    /// The first subscription `[Feb 10, Apr 10)`, then a resubscription `[Jun 17, Jul 17)` after a
    /// lapse, under a win-back offer or not, of `product`.
    static func history(_ product: String, winBack: Bool) -> [Transaction] {
        var resubscription = Mock.renewal("b", product, "2020-06-17T00:00", "2020-07-17T00:00", original: "a")
        if winBack {
            resubscription.offer = .winBack
            resubscription.terms = PurchaseTerms(offerType: 4, offerIdentifier: "come-back", offerPeriod: "P1M", appTransactionId: "7")
        }
        return [Mock.renewal("a", product, "2020-02-10T00:00", "2020-04-10T00:00"), resubscription]
    }

    @Test func R8_winBackAfterLapse_unlocksLatestIssue_likeAPlainResubscribe() {
        let winBack = Mock.evaluate(Self.history("monthly", winBack: true), at: "2020-12-01T00:00")
        let plain = Mock.evaluate(Self.history("monthly", winBack: false), at: "2020-12-01T00:00")
        #expect(winBack.periods.map(\.start) == [Mock.instant("2020-02-10T00:00"), Mock.instant("2020-06-17T00:00")])
        #expect(winBack.periods[1].intervals.map(\.kind) == [.offer])
        // June's issue (published June 1, during the lapse) is unlocked at the resubscription.
        #expect(winBack.readable.first { $0.issue.id == "2020-06" }?.reasons == [.unlockedAtPeriodStart(period: 1)])
        #expect(winBack.readableIssueIds == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])
        #expect(winBack.access(toIssue: "2020-05") == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2020-04-10T00:00"), lapseEnd: Mock.instant("2020-06-17T00:00"))))
        #expect(winBack.readable == plain.readable)
        #expect(winBack.periods.map(\.end) == plain.periods.map(\.end))
        #expect(winBack.purchases.last?.terms?.offerIdentifier == "come-back")
    }

    @Test func R12_winBackAfterLapse_streamsAgain_likeAPlainResubscribe() {
        for at in ["2020-05-01T00:00", "2020-06-17T00:00", "2020-07-01T00:00", "2020-07-17T00:00"] {
            let winBack = Mock.evaluate(Self.history("reader", winBack: true), at: at)
            let plain = Mock.evaluate(Self.history("reader", winBack: false), at: at)
            #expect(winBack.readable == plain.readable, "as of \(at)")
            #expect(winBack.status.state == plain.status.state, "as of \(at)")
        }
        let during = Mock.evaluate(Self.history("reader", winBack: true), at: "2020-07-01T00:00")
        #expect(during.status.state == .active)
        #expect(during.readableIssueIds == (1...7).map { String(format2020: $0) })
        #expect(Mock.evaluate(Self.history("reader", winBack: true), at: "2020-05-01T00:00").readableIssueIds.isEmpty)
    }
}
