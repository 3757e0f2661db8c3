import Masthead
import Testing

/// R5.3: a prorated refund or a Family Sharing revocation ends a transaction at its revocation,
/// like an upgrade (R5.2); a full refund, a revocation without a type and a type the engine does
/// not know refund it (R5.1).
struct RevocationTypeTests {
    /// Auto-renewable transaction `id` `[from, to)`, revoked at `revoked` with `type`, signed at `signed` when given.
    static func revoked(
        _ id: String = "a", _ product: String = "monthly", from: String, to: String, original: String? = nil, revoked: String,
        type: RevocationType?, percentage: Int32? = nil, signed: String? = nil
    ) -> Transaction {
        var transaction = Mock.renewal(id, product, from, to, original: original, cancelled: revoked)
        transaction.revocationType = type
        transaction.revocationPercentage = percentage
        transaction.signedDate = signed.map(Mock.instant)
        return transaction
    }

    /// A purchase without expiry (pass, free, single issue) revoked at `revoked` with `type`.
    static func revokedPurchase(_ id: String, _ product: String, _ at: String, revoked: String, type: RevocationType?) -> Transaction {
        var transaction = Mock.purchase(id, product, at, cancelled: revoked)
        transaction.revocationType = type
        return transaction
    }

    // MARK: Per type, before, at and after the revocation

    @Test(arguments: [RevocationType.refundProrated, .familyRevoke])
    func R5_3_archive_endsAtRevocation_keepsIssuesPublishedBefore(type: RevocationType) throws {
        let history = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: type)]
        // Before the revocation nothing changes (R10).
        let before = Mock.evaluate(history, at: "2020-03-14T23:59:59.999")
        #expect(before.status.state == .active)
        #expect(before.periods.map(\.end) == [Mock.instant("2020-04-20T00:00")])
        #expect(before.readableIssueIds == ["2020-02", "2020-03"])
        #expect(before.refunded.isEmpty)
        // At the revocation instant it has happened: the period is [purchase, revocation), half open.
        let at = Mock.evaluate(history, at: "2020-03-15T00:00")
        #expect(at.status.state == .expired)
        #expect(at.periods.map(\.end) == [Mock.instant("2020-03-15T00:00")])
        #expect(at.periods.first?.intervals.map(\.kind) == [.paid])
        #expect(at.readableIssueIds == ["2020-02", "2020-03"])
        // After it, the issues published before it stay readable (archive); later ones do not.
        let after = Mock.evaluate(history, at: "2020-06-01T00:00")
        #expect(after.status.state == .expired)
        #expect(after.readableIssueIds == ["2020-02", "2020-03"])
        // Listed with the time it no longer pays for.
        let refund = try #require(after.refunded.first)
        #expect(after.refunded.count == 1)
        #expect((refund.transactionId, refund.refundedAt) == ("a", Mock.instant("2020-03-15T00:00")))
        #expect((refund.start, refund.end) == (Mock.instant("2020-03-15T00:00"), Mock.instant("2020-04-20T00:00")))
        #expect(refund.revocationType == type && refund.endedPurchase)
        #expect(
            after.access(toIssue: "2020-04")
                == .notReadable(.endedByRevocation(transactionId: "a", revokedAt: Mock.instant("2020-03-15T00:00"), revocationType: type, percentage: nil)))
        #expect(after.access(toIssue: "2020-05") == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2020-03-15T00:00"), lapseEnd: nil)))
    }

    @Test(arguments: [RevocationType.refundProrated, .familyRevoke])
    func R5_3_issuePublishedExactlyAtRevocation_isNotReadable_oneMillisecondLater_is(type: RevocationType) {
        let exactly = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-01T00:00", type: type)]
        #expect(Mock.evaluate(exactly, at: "2020-06-01T00:00").readableIssueIds == ["2020-02"])
        let later = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-01T00:00:00.001", type: type)]
        #expect(Mock.evaluate(later, at: "2020-06-01T00:00").readableIssueIds == ["2020-02", "2020-03"])
    }

    @Test(arguments: [RevocationType.refundProrated, .familyRevoke])
    func R5_3_streaming_endsAtRevocation(type: RevocationType) {
        let history = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: type)].map {
            var streaming = $0
            streaming.productId = "reader"
            return streaming
        }
        let before = Mock.evaluate(history, at: "2020-03-14T23:59:59.999")
        #expect(before.status.state == .active)
        #expect(before.readableIssueIds == ["2020-01", "2020-02", "2020-03"])
        let at = Mock.evaluate(history, at: "2020-03-15T00:00")
        #expect(at.status.state == .expired)
        #expect(at.readableIssueIds == [])
        #expect(at.access(toIssue: "2020-03") == .notReadable(.streamingInactive(since: Mock.instant("2020-03-15T00:00"))))
    }

    /// Pins R5.1 for a full refund, a revocation without a type and a type the engine does not
    /// know (read as a full refund, R5.3's decision).
    @Test(arguments: [RevocationType.refundFull, RevocationType(rawValue: "REFUND_PARTIAL_FUTURE"), nil])
    func R5_3_fullRefund_noType_unknownType_refundAsR5_1(type: RevocationType?) {
        let history = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: type)]
        #expect(Mock.evaluate(history, at: "2020-03-14T23:59:59.999").readableIssueIds == ["2020-02", "2020-03"])
        let after = Mock.evaluate(history, at: "2020-06-01T00:00")
        #expect(after.status.state == .none)
        #expect(after.periods.isEmpty)
        #expect(after.readableIssueIds == [])
        #expect(after.refunded.map(\.start) == [Mock.instant("2020-02-20T00:00")])
        #expect(after.access(toIssue: "2020-03") == .notReadable(.refunded(transactionId: "a")))
    }

    /// A type's bytes decide, not Unicode equivalence: `FAMILY_REVOKE` with U+212A KELVIN SIGN for
    /// its `K` is a type the engine does not know.
    @Test func R5_3_typeComparedByItsBytes() {
        let lookAlike = RevocationType(rawValue: "FAMILY_REVO\u{212A}E")
        #expect(!lookAlike.endsTransaction)
        #expect(lookAlike != .familyRevoke)
        #expect(RevocationType.familyRevoke.endsTransaction && RevocationType.refundProrated.endsTransaction)
        #expect(!RevocationType.refundFull.endsTransaction)
    }

    // MARK: No grace, no billing retry

    @Test func R5_3_revokedLatestTransaction_getsNoGraceNorBillingRetry_R9() {
        let renewal = RenewalInfo(
            originalTransactionId: "g", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: true,
            isInBillingRetry: true, gracePeriodExpires: Mock.instant("2020-06-17T12:00"), expirationIntent: "2")
        let paid = Mock.renewal("g", "monthly", "2020-05-01T12:00", "2020-06-01T12:00")
        // Without the revocation, the instant lies in grace.
        #expect(Mock.evaluate([paid], renewals: [renewal], at: "2020-06-05T00:00").status.state == .gracePeriod)
        let history = [Self.revoked("g", from: "2020-05-01T12:00", to: "2020-06-01T12:00", revoked: "2020-05-20T00:00", type: .refundProrated)]
        let inGrace = Mock.evaluate(history, renewals: [renewal], at: "2020-06-05T00:00")
        #expect(inGrace.status.state == .expired)
        #expect(inGrace.periods.map(\.end) == [Mock.instant("2020-05-20T00:00")])
        #expect(inGrace.readableIssueIds == ["2020-05"])
        #expect(Mock.evaluate(history, renewals: [renewal], at: "2020-06-20T00:00").status.state == .expired)
    }

    // MARK: Other products

    @Test func R5_3_revokedPass_endsThere_andTheNextPassMovesUp_R6() {
        let history = [
            Self.revokedPurchase("p1", "pass3m", "2020-02-10T00:00", revoked: "2020-03-15T00:00", type: .refundProrated),
            Mock.purchase("p2", "pass1m", "2020-03-01T00:00"),
        ]
        // Before the revocation, the second pass waits for the end of the first.
        let before = Mock.evaluate(history, at: "2020-03-14T00:00")
        #expect(before.periods.map(\.end) == [Mock.instant("2020-06-10T00:00")])
        let after = Mock.evaluate(history, at: "2020-07-01T00:00")
        #expect(after.periods.map(\.start) == [Mock.instant("2020-02-10T00:00")])
        #expect(after.periods.map(\.end) == [Mock.instant("2020-04-15T00:00")])
        #expect(after.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(after.refunded.map(\.start) == [Mock.instant("2020-03-15T00:00")])
        #expect(after.refunded.map(\.end) == [Mock.instant("2020-05-10T00:00")])
    }

    @Test func R5_3_revokedFreeSubscription_endsThere_R7() {
        let history = [Self.revokedPurchase("f", "free", "2020-02-10T00:00", revoked: "2020-04-15T00:00", type: .familyRevoke)]
        let after = Mock.evaluate(history, at: "2020-07-01T00:00")
        #expect(after.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(after.status.state == .expired)
        #expect(
            after.access(toIssue: "2020-05")
                == .notReadable(.endedByRevocation(transactionId: "f", revokedAt: Mock.instant("2020-04-15T00:00"), revocationType: .familyRevoke, percentage: nil)))
    }

    @Test func R5_3_revokedSingleIssue_keptWhenPublishedBeforeTheRevocation_R13() {
        let kept = [Self.revokedPurchase("i", "issue-05", "2020-04-20T00:00", revoked: "2020-06-01T00:00", type: .familyRevoke)]
        #expect(Mock.evaluate(kept, at: "2020-07-01T00:00").readableIssueIds == ["2020-05"])
        let atPublication = [Self.revokedPurchase("i", "issue-05", "2020-04-20T00:00", revoked: "2020-05-01T00:00", type: .familyRevoke)]
        let result = Mock.evaluate(atPublication, at: "2020-07-01T00:00")
        #expect(result.readableIssueIds == [])
        #expect(result.access(toIssue: "2020-05")?.isReadable == false)
        if case .notReadable(.endedByRevocation(let id, _, _, _))? = result.access(toIssue: "2020-05") { #expect(id == "i") } else { Issue.record("not ended by revocation") }
    }

    // MARK: Explanations

    @Test func R5_3_explanations_sayWhatTheRevocationDid_R16() {
        let prorated = [
            Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: .refundProrated, percentage: 33_500)
        ]
        let denial = Mock.evaluate(prorated, at: "2020-06-01T00:00").access(toIssue: "2020-04")
        guard case .notReadable(let reason)? = denial else { Issue.record("April is readable"); return }
        #expect(reason.name == "endedByRevocation")
        #expect(reason.explanation == "a prorated refund of 33.5% ended the purchase on 2020-03-15 00:00 (transaction a)")
        let family = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: .familyRevoke)]
        guard case .notReadable(let revoked)? = Mock.evaluate(family, at: "2020-06-01T00:00").access(toIssue: "2020-04") else {
            Issue.record("April is readable")
            return
        }
        #expect(revoked.explanation == "Family Sharing of the purchase ended on 2020-03-15 00:00 (transaction a)")
        let full = [Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: .refundFull)]
        #expect(Mock.evaluate(full, at: "2020-06-01T00:00").access(toIssue: "2020-04") == .notReadable(.refunded(transactionId: "a")))
    }

    // MARK: The latest signed copy (R2.8)

    @Test func R5_3_laterSignedCopy_givesTheRevocationType_inAnyOrder_R2_8() {
        func copy(signed: String, type: RevocationType?, revoked: String? = "2020-03-15T00:00") -> Transaction {
            var transaction = Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: type, signed: signed)
            transaction.cancellation = revoked.map(Mock.instant)
            return transaction
        }
        let prorated = copy(signed: "2020-03-16T00:00", type: .refundProrated)
        let full = copy(signed: "2020-03-20T00:00", type: .refundFull)
        let reversed = copy(signed: "2020-03-25T00:00", type: nil, revoked: nil)
        let proratedAgain = copy(signed: "2020-03-30T00:00", type: .familyRevoke)
        let cases: [(copies: [Transaction], readable: [String], state: SubscriptionState)] = [
            ([prorated], ["2020-02", "2020-03"], .expired),
            ([prorated, full], [], .none),
            ([prorated, full, reversed], ["2020-02", "2020-03", "2020-04"], .expired),
            ([prorated, full, reversed, proratedAgain], ["2020-02", "2020-03"], .expired),
        ]
        for (copies, readable, state) in cases {
            for order in [copies, copies.reversed()] {
                let result = Mock.evaluate(order, at: "2020-06-01T00:00")
                #expect(result.readableIssueIds == readable, "\(order.map(\.signedDate))")
                #expect(result.status.state == state)
            }
        }
    }

    /// An unsigned copy's cancellation that counts (later than the signed state, R2.8) is a
    /// refund (R5.1) when it is the earlier one; the signed state's type goes with its own.
    @Test func R5_3_countedUnsignedCancellation_isARefund_R2_8() {
        let signedWithout = Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-15T00:00", type: nil, signed: "2020-03-16T00:00")
        var unsignedLater = Mock.renewal("a", "monthly", "2020-02-20T00:00", "2020-04-20T00:00", cancelled: "2020-03-17T00:00")
        // The signed state carries no revocation; the unsigned refund after it is news: R5.1.
        var noRevocation = signedWithout
        noRevocation.cancellation = nil
        let news = PurchaseHistory(transactions: [noRevocation, unsignedLater]).transactions[0]
        #expect(news.countedCancellation == Mock.instant("2020-03-17T00:00"))
        #expect(news.countedRevocationType == nil && !news.cancellationEndsTransaction)
        // A prorated signed revocation earlier than the unsigned news keeps its type.
        var prorated = signedWithout
        prorated.revocationType = .refundProrated
        let earlier = PurchaseHistory(transactions: [unsignedLater, prorated]).transactions[0]
        #expect(earlier.countedCancellation == Mock.instant("2020-03-15T00:00"))
        #expect(earlier.countedRevocationType == .refundProrated && earlier.cancellationEndsTransaction)
        // At one instant, the refund (R5.1) wins.
        prorated.cancellation = Mock.instant("2020-03-17T00:00")
        let tie = PurchaseHistory(transactions: [prorated, unsignedLater]).transactions[0]
        #expect(tie.countedCancellation == Mock.instant("2020-03-17T00:00"))
        #expect(!tie.cancellationEndsTransaction)
        unsignedLater.cancellation = nil
        #expect(PurchaseHistory(transactions: [prorated, unsignedLater]).transactions[0].cancellationEndsTransaction)
    }

    /// Unsigned copies, or signed ones of one instant, combine field by field: the type and
    /// percentage go with the earliest cancellation; at one instant a refund wins.
    @Test func R5_3_copiesOfOneInstant_typeGoesWithTheEarliestCancellation_R2_3() {
        let prorated = Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-10T00:00", type: .refundProrated, percentage: 40_000, signed: "2020-03-20T00:00")
        let full = Self.revoked(from: "2020-02-20T00:00", to: "2020-04-20T00:00", revoked: "2020-03-12T00:00", type: .refundFull, signed: "2020-03-20T00:00")
        let merged = prorated.merged(with: full)
        #expect(merged == full.merged(with: prorated))
        #expect(merged.cancellation == Mock.instant("2020-03-10T00:00"))
        #expect(merged.revocationType == .refundProrated && merged.revocationPercentage == 40_000)
        var sameInstant = full
        sameInstant.cancellation = prorated.cancellation
        let tie = prorated.merged(with: sameInstant)
        #expect(tie == sameInstant.merged(with: prorated))
        #expect(tie.revocationType == .refundFull && tie.revocationPercentage == nil)
    }
}
