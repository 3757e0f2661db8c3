import Masthead
import Testing

/// R2.7: renewal infos are ordered by the evidence they carry, never by arrival, and an as-of
/// question uses only what was known by then.
struct RenewalOrderTests {
    static let history = [
        Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00"),
        Mock.renewal("b", "monthly", "2020-03-10T00:00", "2020-04-10T00:00", original: "a"),
    ]

    static func info(autoRenewOn: Bool, evidence: String?) -> RenewalInfo {
        RenewalInfo(
            originalTransactionId: "a", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: autoRenewOn,
            evidence: evidence.map(Mock.instant))
    }

    static let on = info(autoRenewOn: true, evidence: "2020-03-01T00:00")
    static let off = info(autoRenewOn: false, evidence: "2020-03-20T00:00")

    @Test func R2_7_asOfBeforeEvidence_usesOlderInfo_afterUsesNewer() {
        let renewals = [Self.off, Self.on]
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-03-19T23:59").status.autoRenewOn == true)
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-03-20T00:00").status.autoRenewOn == false)
        // Before any evidence, nothing was known.
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-02-20T00:00").status.autoRenewOn == nil)
    }

    /// R2.6 with R2.7: renewal info without an original transaction id, matched by the product of
    /// the subscription's latest transaction, is used only from its evidence instant on, like
    /// info matched by original transaction.
    @Test func R2_7_infoMatchedByProduct_R2_6_notUsedBeforeItsEvidence() {
        var on = Self.on
        on.originalTransactionId = nil
        var off = Self.off
        off.originalTransactionId = nil
        let renewals = [on, off]
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-02-20T00:00").status.autoRenewOn == nil)
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-03-19T23:59").status.autoRenewOn == true)
        #expect(Mock.evaluate(Self.history, renewals: renewals, at: "2020-03-20T00:00").status.autoRenewOn == false)
    }

    @Test func R2_7_replayedOlderInfo_doesNotRollBack() {
        var history = PurchaseHistory(transactions: Self.history)
        for renewal in [Self.on, Self.off, Self.on] { history.merge(transactions: [], renewals: [renewal]) }
        #expect(history.renewals == [Self.on, Self.off])
        let answer = Mock.engine().evaluate(history, publication: Mock.monthly(), at: Mock.instant("2020-04-01T00:00"))
        #expect(answer.status.autoRenewOn == false)
    }

    /// Without a change date, two infos can share an evidence instant: the later stage of a
    /// subscription's life wins, in either order.
    @Test func R2_7_sameEvidence_laterStageWins_inAnyOrder() {
        let renewing = Self.info(autoRenewOn: true, evidence: "2020-03-10T00:00")
        var retrying = renewing
        retrying.isInBillingRetry = true
        retrying.expirationIntent = "2"
        var expired = retrying
        expired.isInBillingRetry = false
        expired.autoRenewOn = false
        for order in [[renewing, retrying, expired], [expired, retrying, renewing], [retrying, expired, renewing]] {
            #expect(PurchaseHistory(renewals: order).renewals == [renewing, retrying, expired])
        }
    }

    /// Billing retry learned at the latest renewal says nothing about an earlier lapse.
    @Test func R2_7_billingRetryLearnedLater_doesNotApplyToEarlierLapse() {
        let lapsed = [
            Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00"),
            Mock.renewal("b", "monthly", "2020-04-01T00:00", "2020-05-01T00:00", original: "a"),
        ]
        let retry = RenewalInfo(
            originalTransactionId: "a", productId: "monthly", autoRenewOn: true, isInBillingRetry: true, expirationIntent: "2",
            evidence: Mock.instant("2020-04-01T00:00"))
        #expect(Mock.evaluate(lapsed, renewals: [retry], at: "2020-03-20T00:00").status.state == .expired)
        #expect(Mock.evaluate(lapsed, renewals: [retry], at: "2020-05-20T00:00").status.state == .billingRetry)
    }

    /// The answer's stable range ends where a newer renewal info becomes known.
    @Test func R2_7_stableRange_endsAtNextEvidence() {
        let answer = Mock.evaluate(Self.history, renewals: [Self.on, Self.off], at: "2020-03-15T00:00")
        #expect(answer.stable.upperBound == Mock.instant("2020-03-20T00:00"))
        #expect(answer.stable.lowerBound == Mock.instant("2020-03-10T00:00"))
    }
}
