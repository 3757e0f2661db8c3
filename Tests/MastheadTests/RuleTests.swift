import Masthead
import Testing

/// Each rule of the contract (R1, R4–R16) by name, with its boundaries. R2 and R3 are in MastheadFormatsTests.
struct RuleTests {
    // MARK: R1 half-open intervals

    @Test func R1_issuePublishedExactlyAtPeriodStart_isInPeriod() {
        // Period starts exactly at the March issue's publish instant.
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-03-01T00:00", "2020-04-01T00:00")], at: "2020-06-01T00:00")
        #expect(result.readable.first { $0.issue.id == "2020-03" }?.reasons == [.publishedDuringPeriod(period: 0), .unlockedAtPeriodStart(period: 0)])
        #expect(result.readableIssueIds == ["2020-03"])
    }

    @Test func R1_issuePublishedExactlyAtPeriodEnd_isNotInPeriod() {
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-02-15T00:00", "2020-04-01T00:00")], at: "2020-06-01T00:00")
        #expect(result.readableIssueIds == ["2020-02", "2020-03"])
        #expect(result.access(toIssue: "2020-04")?.isReadable == false)
    }

    @Test func R1_asOfExactlyAtEnd_isExpired_andOneMillisecondBefore_isActive() {
        let history = [Mock.renewal("a", "reader", "2020-02-15T00:00", "2020-04-01T00:00")]
        #expect(Mock.evaluate(history, at: "2020-04-01T00:00").status.state == .expired)
        #expect(Mock.evaluate(history, at: "2020-03-31T23:59:59.999").status.state == .active)
        #expect(Mock.evaluate(history, at: "2020-02-15T00:00").status.state == .active)
        #expect(Mock.evaluate(history, at: "2020-02-14T23:59:59.999").status.state == .none)
    }

    // MARK: R4 auto-renewable intervals

    @Test func R4_intervalIsPurchaseToExpiry_notPurchasePlusDuration() {
        // A 3-day trial then a renewal: the dates decide, not a product length.
        let history = [
            Mock.renewal("a", "monthly", "2020-02-20T12:00", "2020-02-23T12:00"),
            Mock.renewal("b", "monthly", "2020-02-23T12:00", "2020-03-23T12:00", original: "a"),
        ]
        let result = Mock.evaluate(history, at: "2020-05-01T00:00")
        #expect(result.periods.count == 1)
        #expect(result.periods[0].start == Mock.instant("2020-02-20T12:00"))
        #expect(result.periods[0].end == Mock.instant("2020-03-23T12:00"))
    }

    // MARK: R5 cancellation, refund, upgrade

    @Test func R5_1_refundAfterAsOf_stillCounts_refundBefore_removesInterval() {
        let history = [Mock.renewal("a", "monthly", "2020-03-10T12:00", "2020-04-10T12:00", cancelled: "2020-03-25T00:00")]
        let before = Mock.evaluate(history, at: "2020-03-24T00:00")
        #expect(before.status.state == .active)
        #expect(before.readableIssueIds == ["2020-03"])
        let after = Mock.evaluate(history, at: "2020-03-25T00:00")
        #expect(after.status.state == .none)
        #expect(after.readableIssueIds == [])
        #expect(after.access(toIssue: "2020-03") == .notReadable(.refunded(transactionId: "a")))
    }

    @Test func R5_1_refundedRenewal_doesNotStartPeriod_andOpensLapse() {
        let history = [
            Mock.renewal("a", "monthly", "2020-02-10T12:00", "2020-03-10T12:00"),
            Mock.renewal("b", "monthly", "2020-03-10T11:00", "2020-04-10T12:00", original: "a", cancelled: "2020-03-15T00:00"),
            Mock.renewal("c", "monthly", "2020-04-10T11:00", "2020-05-10T12:00", original: "a"),
        ]
        let result = Mock.evaluate(history, at: "2020-06-01T00:00")
        #expect(result.periods.map(\.start) == [Mock.instant("2020-02-10T12:00"), Mock.instant("2020-04-10T11:00")])
        // April is the issue unlocked when the second period starts; March was published while paid by `a`.
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04", "2020-05"])
        #expect(result.refunded.map(\.transactionId) == ["b"])
    }

    @Test func R5_2_upgrade_keepsIntervalToCancellation_noLapse() {
        let history = [
            Mock.renewal("a", "monthly", "2020-02-01T12:00", "2020-03-01T12:00"),
            Mock.renewal("b", "monthly", "2020-03-01T11:58", "2020-04-01T12:00", original: "a", cancelled: "2020-03-15T12:00", upgraded: true),
            Mock.renewal("c", "premium", "2020-03-15T12:00", "2020-04-15T12:00", original: "a"),
        ]
        let result = Mock.evaluate(history, at: "2020-05-01T00:00")
        #expect(result.periods.count == 1)
        #expect(result.periods[0].intervals.map(\.kind) == [.paid, .upgraded, .paid])
        #expect(result.periods[0].intervals[1].end == Mock.instant("2020-03-15T12:00"))
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(result.refunded.isEmpty)
    }

    @Test func R5_4_autoRenewOff_isNotCancellation() {
        let renewal = RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: false)
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00")], renewals: [renewal], at: "2020-03-05T00:00")
        #expect(result.status.state == .active)
        #expect(result.status.autoRenewOn == false)
        #expect(result.readableIssueIds == ["2020-02", "2020-03"])
    }

    // MARK: R6 non-renewing stacking

    @Test func R6_stacking_calendarMonths_jan31PlusOneMonth_isEndOfFebruary() {
        let history = [Mock.purchase("p1", "pass1m", "2020-01-31T10:00"), Mock.purchase("p2", "pass3m", "2020-02-10T10:00")]
        let result = Mock.evaluate(history, at: "2020-12-31T00:00")
        #expect(result.periods.count == 1)
        #expect(result.periods[0].intervals.map(\.end) == [Mock.instant("2020-02-29T10:00"), Mock.instant("2020-05-29T10:00")])
        #expect(result.periods[0].intervals[1].start == Mock.instant("2020-02-29T10:00"))
        #expect(result.readableIssueIds == ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05"])
    }

    @Test func R6_cancelledPass_isLeftOutBeforeStacking_laterOnesMoveUp() {
        let history = [
            Mock.purchase("p1", "pass1m", "2020-03-01T00:00", cancelled: "2020-03-02T00:00"),
            Mock.purchase("p2", "pass1m", "2020-03-01T06:00"),
        ]
        let before = Mock.evaluate(history, at: "2020-03-01T12:00")
        #expect(before.periods.first?.intervals.last?.start == Mock.instant("2020-04-01T00:00"))
        let after = Mock.evaluate(history, at: "2020-03-10T00:00")
        #expect(after.periods.first?.intervals.map(\.start) == [Mock.instant("2020-03-01T06:00")])
        #expect(after.periods.first?.end == Mock.instant("2020-04-01T06:00"))
    }

    @Test func R6_gapBetweenPasses_isLapse() {
        let history = [Mock.purchase("p1", "pass1m", "2020-01-15T00:00"), Mock.purchase("p2", "pass1m", "2020-04-15T00:00")]
        let result = Mock.evaluate(history, at: "2020-12-01T00:00")
        #expect(result.periods.count == 2)
        #expect(result.readableIssueIds == ["2020-01", "2020-02", "2020-04", "2020-05"])
    }

    @Test func R6_durationArithmetic() {
        #expect(CalendarDuration(iso8601: "P1M")!.added(to: Mock.instant("2021-01-31T08:00")) == Mock.instant("2021-02-28T08:00"))
        #expect(CalendarDuration(iso8601: "P1Y")!.added(to: Mock.instant("2020-02-29T00:00")) == Mock.instant("2021-02-28T00:00"))
        #expect(CalendarDuration(iso8601: "P1W")!.added(to: Mock.instant("2020-12-28T00:00")) == Mock.instant("2021-01-04T00:00"))
        #expect(CalendarDuration(iso8601: "P7D") == CalendarDuration(iso8601: "P1W"))
        #expect(CalendarDuration(iso8601: "P3M")!.added(to: Mock.instant("2020-11-30T00:00")) == Mock.instant("2021-02-28T00:00"))
        for bad in ["", "P", "1M", "PM", "P1", "P1M1Y", "PT1H", "P1.5M", "P0D"] { #expect(CalendarDuration(iso8601: bad) == nil, "\(bad)") }
    }

    // MARK: R7 free subscriptions

    @Test func R7_freeSubscription_neverExpires_unlessCancelled() {
        let result = Mock.evaluate([Mock.purchase("f", "free", "2020-03-15T00:00")], at: "2020-12-31T00:00")
        #expect(result.status.state == .active)
        #expect(result.periods.first?.end == .distantFuture)
        #expect(result.readableIssueIds.first == "2020-03")
        #expect(result.readableIssueIds.count == 10)
        let cancelled = Mock.evaluate([Mock.purchase("f", "free", "2020-03-15T00:00", cancelled: "2020-04-01T00:00")], at: "2020-12-31T00:00")
        #expect(cancelled.readableIssueIds.isEmpty)
    }

    // MARK: R8 periods and lapses

    @Test func R8_renewalOneMillisecondLate_isLapse_overlapAndTouch_areNot() {
        let late = [
            Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00"),
            Mock.renewal("b", "monthly", "2020-03-10T00:00:00.001", "2020-04-10T00:00", original: "a"),
        ]
        #expect(Mock.evaluate(late, at: "2020-05-01T00:00").periods.count == 2)
        #expect(Mock.evaluate(late, at: "2020-05-01T00:00").lapses.count == 2)
        let touching = [late[0], Mock.renewal("b", "monthly", "2020-03-10T00:00", "2020-04-10T00:00", original: "a")]
        #expect(Mock.evaluate(touching, at: "2020-05-01T00:00").periods.count == 1)
        let overlapping = [late[0], Mock.renewal("b", "monthly", "2020-03-09T23:00", "2020-04-10T00:00", original: "a")]
        #expect(Mock.evaluate(overlapping, at: "2020-05-01T00:00").periods.count == 1)
    }

    @Test func R8_lateRenewal_unlocksLatestIssue_atNewPeriodStart() {
        // A renewal one hour late after March 10 starts a new period; the latest issue then (March) is unlocked again.
        let late = [
            Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00"),
            Mock.renewal("b", "monthly", "2020-03-10T01:00", "2020-04-10T00:00", original: "a"),
        ]
        let result = Mock.evaluate(late, at: "2020-05-01T00:00")
        #expect(result.readable.first { $0.issue.id == "2020-03" }?.reasons == [.publishedDuringPeriod(period: 0), .unlockedAtPeriodStart(period: 1)])
    }

    @Test func R8_archiveAndStreaming_areSeparatePeriods() {
        let history = [
            Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00"),
            Mock.renewal("b", "reader", "2020-03-01T00:00", "2020-05-10T00:00"),
        ]
        let result = Mock.evaluate(history, at: "2020-04-15T00:00")
        #expect(result.periods.map(\.access) == [.archive, .streaming])
        #expect(result.readableIssueIds == ["2020-01", "2020-02", "2020-03", "2020-04"])
    }

    // MARK: R9 billing grace period

    static let graceHistory = [Mock.renewal("g", "monthly", "2020-05-01T12:00", "2020-06-01T12:00")]
    static let graceRenewal = RenewalInfo(
        originalTransactionId: "g", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: true,
        isInBillingRetry: true, gracePeriodExpires: Mock.instant("2020-06-17T12:00"), expirationIntent: "2")

    @Test func R9_grace_before_inside_after() {
        let before = Mock.evaluate(Self.graceHistory, renewals: [Self.graceRenewal], at: "2020-05-31T00:00")
        #expect(before.status.state == .active)
        #expect(before.periods.first?.end == Mock.instant("2020-06-01T12:00"))
        let start = Mock.evaluate(Self.graceHistory, renewals: [Self.graceRenewal], at: "2020-06-01T12:00")
        #expect(start.status.state == .gracePeriod)
        #expect(start.periods.first?.end == Mock.instant("2020-06-17T12:00"))
        #expect(start.readableIssueIds == ["2020-05", "2020-06"])
        let lastMoment = Mock.evaluate(Self.graceHistory, renewals: [Self.graceRenewal], at: "2020-06-17T11:59:59.999")
        #expect(lastMoment.status.state == .gracePeriod)
        let after = Mock.evaluate(Self.graceHistory, renewals: [Self.graceRenewal], at: "2020-06-17T12:00")
        #expect(after.status.state == .billingRetry)
        #expect(after.periods.first?.end == Mock.instant("2020-06-01T12:00"))
        #expect(after.readableIssueIds == ["2020-05", "2020-06"])
    }

    /// Grace follows the renewal info in force as of the instant (R2.7), not any older one: once
    /// a newer info says billing retry is over (Apple keeps the grace expiry in it), the lapse is
    /// no longer bridged, though an older info in force before it was in retry with grace.
    @Test func R9_noGrace_onceTheInfoInForceIsNoLongerInBillingRetry() {
        var retrying = Self.graceRenewal
        retrying.evidence = Mock.instant("2020-05-01T12:00")
        var gaveUp = retrying
        gaveUp.isInBillingRetry = false
        gaveUp.autoRenewOn = false
        gaveUp.expirationIntent = "1"
        gaveUp.evidence = Mock.instant("2020-06-05T00:00")
        let renewals = [retrying, gaveUp]
        let stillRetrying = Mock.evaluate(Self.graceHistory, renewals: renewals, at: "2020-06-04T00:00")
        #expect(stillRetrying.status.state == .gracePeriod)
        #expect(stillRetrying.periods.first?.end == Mock.instant("2020-06-17T12:00"))
        let afterGivingUp = Mock.evaluate(Self.graceHistory, renewals: renewals, at: "2020-06-10T00:00")
        #expect(afterGivingUp.status.state == .expired)
        #expect(afterGivingUp.periods.first?.end == Mock.instant("2020-06-01T12:00"))
    }

    @Test func R9_noGrace_withoutBillingRetry() {
        var renewal = Self.graceRenewal
        renewal.isInBillingRetry = false
        let result = Mock.evaluate(Self.graceHistory, renewals: [renewal], at: "2020-06-05T00:00")
        #expect(result.status.state == .expired)
    }

    // MARK: R10 as of an instant

    @Test func R10_purchaseAfterAsOf_doesNotCount_butUnpublishedIssuesNeverReadable() {
        let history = [Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-12-10T00:00")]
        #expect(Mock.evaluate(history, at: "2020-02-09T23:59").status.state == .none)
        let result = Mock.evaluate(history, at: "2020-04-15T00:00")
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(result.access(toIssue: "2020-05") == .notReadable(.notYetPublished))
    }

    @Test func R10_issuePublishedExactlyAtAsOf_isPublished() {
        let history = [Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-12-10T00:00")]
        #expect(Mock.evaluate(history, at: "2020-04-01T00:00").readableIssueIds.last == "2020-04")
        #expect(Mock.evaluate(history, at: "2020-03-31T23:59:59.999").readableIssueIds.last == "2020-03")
    }

    // MARK: R11 archive

    @Test func R11_unlockedAtStart_includesAllIssuesSharingThatInstant() {
        let special = Issue(id: "2020-03-special", published: Mock.instant("2020-03-01T00:00"))
        let publication = Mock.monthly(extraIssues: [special])
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-03-10T00:00", "2020-03-20T00:00")], at: "2020-06-01T00:00", publication: publication)
        #expect(result.readableIssueIds == ["2020-03", "2020-03-special"])
        #expect(result.readable.allSatisfy { $0.reasons == [.unlockedAtPeriodStart(period: 0)] })
    }

    @Test func R11_periodBeforeFirstIssue_unlocksNothing() {
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2019-11-10T00:00", "2019-12-10T00:00")], at: "2020-06-01T00:00")
        #expect(result.readableIssueIds.isEmpty)
        #expect(result.access(toIssue: "2020-01") == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2019-12-10T00:00"), lapseEnd: nil)))
    }

    @Test func R11_accessStaysAfterLapse() {
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-04-10T00:00")], at: "2020-12-01T00:00")
        #expect(result.status.state == .expired)
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(result.access(toIssue: "2020-01") == .notReadable(.publishedBeforeSubscription(firstPeriodStart: Mock.instant("2020-02-10T00:00"))))
    }

    // MARK: R12 streaming

    @Test func R12_window_limitsToLatestIssues() {
        let result = Mock.evaluate([Mock.renewal("a", "reader6", "2020-01-10T00:00", "2020-12-10T00:00")], at: "2020-09-15T00:00")
        #expect(result.readableIssueIds == ["2020-04", "2020-05", "2020-06", "2020-07", "2020-08", "2020-09"])
        #expect(result.access(toIssue: "2020-03") == .notReadable(.outsideStreamingWindow(window: 6)))
    }

    @Test func R12_overlappingProducts_largestWindowWins() {
        let history = [
            Mock.renewal("a", "reader2", "2020-01-10T00:00", "2020-12-10T00:00"),
            Mock.renewal("b", "reader6", "2020-05-10T00:00", "2020-06-10T00:00"),
        ]
        #expect(Mock.evaluate(history, at: "2020-05-15T00:00").readableIssueIds.count == 5)
        #expect(Mock.evaluate(history, at: "2020-07-15T00:00").readableIssueIds == ["2020-06", "2020-07"])
    }

    @Test func R12_nonRenewingStreamingPass() {
        let result = Mock.evaluate([Mock.purchase("w", "passweek", "2020-03-30T00:00")], at: "2020-04-05T00:00")
        #expect(result.status.state == .active)
        #expect(result.readableIssueIds.count == 4)
        #expect(Mock.evaluate([Mock.purchase("w", "passweek", "2020-03-30T00:00")], at: "2020-04-06T00:00").readableIssueIds.isEmpty)
    }

    // MARK: R13 single and free issues

    @Test func R13_singleIssue_readableOncePublished_untilCancelled() {
        let bought = [Mock.purchase("i", "issue-05", "2020-04-20T00:00")]
        #expect(Mock.evaluate(bought, at: "2020-04-25T00:00").readableIssueIds == [])
        #expect(Mock.evaluate(bought, at: "2020-05-01T00:00").readable == [ReadableIssue(issue: Mock.monthly().issues[4], reasons: [.singlePurchase(transactionId: "i")])])
        let refunded = [Mock.purchase("i", "issue-05", "2020-04-20T00:00", cancelled: "2020-06-01T00:00")]
        #expect(Mock.evaluate(refunded, at: "2020-05-15T00:00").readableIssueIds == ["2020-05"])
        #expect(Mock.evaluate(refunded, at: "2020-06-01T00:00").access(toIssue: "2020-05") == .notReadable(.refunded(transactionId: "i")))
        #expect(Mock.evaluate(refunded, at: "2020-06-01T00:00").status.state == .none)
    }

    @Test func R13_freeIssue_readableByEveryoneOncePublished() {
        let publication = Mock.monthly(freeMonths: [3])
        #expect(Mock.evaluate([], at: "2020-02-28T00:00", publication: publication).readableIssueIds == [])
        let result = Mock.evaluate([], at: "2020-06-01T00:00", publication: publication)
        #expect(result.readable == [ReadableIssue(issue: publication.issues[2], reasons: [.free])])
        #expect(result.access(toIssue: "2020-04") == .notReadable(.notSubscribed))
    }

    // MARK: R14 environments

    @Test func R14_sandboxTransactions_grantOnlyInSandbox_sameOriginalIdIsTwoSubscriptions() {
        let history = [
            Mock.renewal("x", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", environment: .sandbox),
            Mock.renewal("x", "monthly", "2020-05-10T00:00", "2020-06-10T00:00", environment: .production),
        ]
        #expect(PurchaseHistory(transactions: history).transactions.count == 2)
        #expect(Mock.evaluate(history, at: "2020-12-01T00:00").readableIssueIds == ["2020-05", "2020-06"])
        #expect(Mock.evaluate(history, at: "2020-12-01T00:00", environment: .sandbox).readableIssueIds == ["2020-02", "2020-03"])
        let onlySandbox = Mock.engine().evaluate(PurchaseHistory(transactions: [history[0]]), at: Mock.instant("2020-12-01T00:00"))
        #expect(onlySandbox.publications.isEmpty)
    }

    // MARK: R15 status

    @Test func R15_billingRetry_lastsLessThanSixtyDays() {
        let renewal = RenewalInfo(originalTransactionId: "a", productId: "monthly", isInBillingRetry: true)
        let history = [Mock.renewal("a", "monthly", "2020-02-01T00:00", "2020-03-01T00:00")]
        #expect(Mock.evaluate(history, renewals: [renewal], at: "2020-03-01T00:00").status.state == .billingRetry)
        #expect(Mock.evaluate(history, renewals: [renewal], at: "2020-04-29T23:59:59.999").status.state == .billingRetry)
        #expect(Mock.evaluate(history, renewals: [renewal], at: "2020-04-30T00:00").status.state == .expired)
    }

    @Test func R15_pendingPlanChange_andRenewalMatchedByProduct_R2_6() {
        // Renewal info without original_transaction_id applies to the subscription whose latest transaction has its product.
        let renewal = RenewalInfo(productId: "premium", autoRenewProductId: "monthly", autoRenewOn: true, expirationIntent: nil)
        let history = [
            Mock.renewal("a", "monthly", "2020-02-01T00:00", "2020-03-01T00:00"),
            Mock.renewal("b", "premium", "2020-03-01T00:00", "2020-04-01T00:00", original: "a"),
        ]
        let status = Mock.evaluate(history, renewals: [renewal], at: "2020-03-15T00:00").status
        #expect(status.state == .active)
        #expect(status.autoRenewOn == true)
        #expect(status.currentProductId == "premium")
        #expect(status.hasPendingPlanChange)
    }

    @Test func R15_bundleProduct_grantsEachPublication() {
        let engine = Mock.engine()
        let result = engine.evaluate(
            PurchaseHistory(transactions: [Mock.renewal("b", "bundle", "2020-02-10T00:00", "2020-03-10T00:00")]), at: Mock.instant("2020-03-01T00:00"))
        #expect(result.publications.map(\.publication.id) == ["the-monthly", "the-weekly"])
        #expect(result.publications.allSatisfy { $0.status.state == .active })
        #expect(result.publications[1].readableIssueIds == ["w6", "w7", "w8"])
    }

    @Test func R3_unknownProducts_grantNothing_andAreCounted() {
        let history = PurchaseHistory(transactions: [Mock.renewal("u", "com.other.app", "2020-02-10T00:00", "2020-03-10T00:00")])
        let result = Mock.engine().evaluate(history, at: Mock.instant("2020-03-01T00:00"))
        #expect(result.publications.isEmpty)
        #expect(result.unknownProductIds == ["com.other.app"])
        #expect(result.unknownTransactionCount == 1)
    }

    // MARK: R16 explanations

    @Test func R16_everyIssueHasADecision_readableOnesWithReasons() {
        let result = Mock.evaluate(SeedTimelineTests.table61 + [Mock.purchase("i", "issue-05", "2020-07-01T00:00")], at: "2020-07-02T00:00")
        let decisions = result.decisions
        #expect(decisions.count == 12)
        #expect(decisions.filter { $0.access.isReadable }.map(\.issue.id) == ["2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"])
        #expect(decisions[4].access == .readable([.singlePurchase(transactionId: "i")]))
        #expect(decisions[0].access == .notReadable(.publishedBeforeSubscription(firstPeriodStart: Mock.instant("2020-02-20T12:00"))))
        #expect(decisions[11].access == .notReadable(.notYetPublished))
    }

    // MARK: R2.3 duplicates (domain part)

    @Test func R2_3_copiesMerge_earliestCancellationWins() {
        let plain = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00")
        let late = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-03-01T00:00")
        let early = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-02-20T00:00")
        let history = PurchaseHistory(transactions: [plain, late, early, plain])
        #expect(history.transactions.count == 1)
        #expect(history.transactions[0].cancellation == Mock.instant("2020-02-20T00:00"))
    }

    @Test func civilTime_roundTrips_andFormats() {
        #expect(Mock.instant("1970-01-01T00:00").milliseconds == 0)
        #expect(Mock.instant("2020-02-29T23:59:59.999").description == "2020-02-29T23:59:59.999Z")
        #expect(CivilTime(Instant(milliseconds: -1)).rfc3339 == "1969-12-31T23:59:59.999Z")
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let date = CivilTime.civil(fromDays: Int64(days))
            #expect(CivilTime.days(fromCivil: date.year, date.month, date.day) == Int64(days))
        }
    }
}
