import Masthead
@testable import MastheadService
import Testing

/// The reasons cached answers share: arrays naming no purchase or grant, kept once each, at most
/// the set's capacity of them.
struct SharedReasonsTests {
    /// Where an array's elements lie: the same place for one shared array.
    static func storage(_ reasons: [AccessReason]) -> UnsafeRawPointer? { reasons.withUnsafeBytes { $0.baseAddress } }

    @Test func equalReasons_getTheArrayKeptFirst() {
        var shared = SharedReasons(capacity: 8)
        let first: [AccessReason] = [.publishedDuringPeriod(period: 2), .streaming(period: 3, window: 12)]
        let again: [AccessReason] = [.publishedDuringPeriod(period: 2), .streaming(period: 3, window: 12)]
        #expect(Self.storage(first) != Self.storage(again))
        #expect(Self.storage(shared.shared(first)) == Self.storage(first))
        #expect(Self.storage(shared.shared(again)) == Self.storage(first))
        #expect(Self.storage(shared.shared([.free])) != Self.storage(first))
        #expect(shared.count == 2)
    }

    @Test func reasonsNamingAPurchaseOrGrant_areNotKept() {
        var shared = SharedReasons(capacity: 8)
        for reasons: [AccessReason] in [[.singlePurchase(transactionId: "t-1")], [.free, .granted(grantId: "g-1", source: "print")]] {
            let copy = reasons.map { $0 }
            _ = shared.shared(reasons)
            #expect(Self.storage(shared.shared(copy)) == Self.storage(copy))
        }
        #expect(shared.count == 0)
    }

    @Test func aFullSet_keepsNoMore_butStillSharesWhatItKept() {
        var shared = SharedReasons(capacity: 2)
        let kept: [[AccessReason]] = [[.publishedDuringPeriod(period: 0)], [.unlockedAtPeriodStart(period: 0)]]
        for reasons in kept { _ = shared.shared(reasons) }
        let beyond: [AccessReason] = [.publishedDuringPeriod(period: 1)]
        _ = shared.shared(beyond)
        #expect(shared.count == 2)
        let beyondAgain: [AccessReason] = [.publishedDuringPeriod(period: 1)]
        #expect(Self.storage(shared.shared(beyondAgain)) == Self.storage(beyondAgain))
        let keptAgain: [AccessReason] = [.unlockedAtPeriodStart(period: 0)]
        #expect(Self.storage(shared.shared(keptAgain)) == Self.storage(kept[1]))
    }
}
