import Foundation
import Masthead
import MastheadStorage
import MastheadTestSupport
import Testing

/// Gift codes on both backends: only hashes stored, each redeemed once, a gift extended by the
/// next on the same publications and access, the grant stored and read with the reader's history.
struct GiftCodeStoreTests {
    /// Midnight UTC of a `YYYY-MM-DD` day.
    static func day(_ text: String) -> Instant {
        let parts = text.split(separator: "-").map { Int($0)! }
        return CivilTime(year: parts[0], month: parts[1], day: parts[2]).instant
    }
    static let year = CalendarDuration(iso8601: "P1Y")!
    static let offer = GiftOffer(publications: ["the-monthly"], access: .archive, duration: year, redeemBy: day("2021-01-01"))

    static func create(_ store: any EntitlementStore, _ hashes: [[UInt8]], offer: GiftOffer = offer) throws -> [Int64] {
        try store.inTransaction { () throws(StorageError) in try store.createGiftCodes(hashes: hashes, offer: offer, now: day("2020-01-01")) }
    }

    static func redeem(_ store: any EntitlementStore, _ hash: [UInt8], _ userId: String, at now: String) throws -> GiftRedemption {
        try store.inTransaction { () throws(StorageError) in try store.redeemGiftCode(hash: hash, userId: userId, now: day(now)) }
    }

    @Test(arguments: StoreBackend.tested) func redeem_givesAGiftGrant_once_readWithTheHistory(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let ids = try Self.create(store, [[1, 2, 3], [4, 5, 6]])
        #expect(ids.count == 2 && ids[0] != ids[1])
        let redeemed = try Self.redeem(store, [1, 2, 3], "ana", at: "2020-03-01")
        let expected = Grant(
            grantId: "gift:\(ids[0])", source: "gift", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
            start: Self.day("2020-03-01"), end: Self.day("2021-03-01"))
        #expect(redeemed == .redeemed(expected))
        #expect(try store.history(forUser: "ana").grants == [expected])
        // A stored grant, as the publisher's are: it can be revoked like them.
        #expect(try store.grants(forUser: "ana") == [expected])
        #expect(try store.userExists("ana"))
        #expect(try Self.redeem(store, [1, 2, 3], "ana", at: "2020-03-02") == .alreadyRedeemed)
        #expect(try Self.redeem(store, [1, 2, 3], "bo", at: "2020-03-02") == .alreadyRedeemed)
        #expect(try store.history(forUser: "bo").grants.isEmpty)
        #expect(try Self.redeem(store, [9, 9, 9], "bo", at: "2020-03-02") == .unknown)
        #expect(try Self.redeem(store, [4, 5, 6], "bo", at: "2021-01-01") == .expired(redeemBy: Self.day("2021-01-01")))
        #expect(try store.history(forUser: "bo").grants.isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func redeem_whileAGiftOnTheSamePublicationsAndAccessRuns_startsAtItsEnd(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try Self.create(store, [[1], [2], [3]])
        var streaming = Self.offer
        streaming.access = .streaming
        _ = try Self.create(store, [[4]], offer: streaming)
        _ = try Self.redeem(store, [1], "ana", at: "2020-03-01")
        guard case .redeemed(let second) = try Self.redeem(store, [2], "ana", at: "2020-06-01") else { Issue.record("not redeemed"); return }
        #expect(second.start == Self.day("2021-03-01") && second.end == Self.day("2022-03-01"))
        guard case .redeemed(let third) = try Self.redeem(store, [3], "ana", at: "2020-07-01") else { Issue.record("not redeemed"); return }
        #expect(third.start == Self.day("2022-03-01") && third.end == Self.day("2023-03-01"))
        // Another access style is another gift: it starts now.
        guard case .redeemed(let other) = try Self.redeem(store, [4], "ana", at: "2020-07-01") else { Issue.record("not redeemed"); return }
        #expect(other.start == Self.day("2020-07-01"))
        #expect(try store.history(forUser: "ana").grants.count == 4)
    }

    @Test(arguments: StoreBackend.tested) func redeem_afterTheGiftEnded_startsNow(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        var late = Self.offer
        late.redeemBy = Self.day("2030-01-01")
        _ = try Self.create(store, [[1], [2]], offer: late)
        _ = try Self.redeem(store, [1], "ana", at: "2020-03-01")
        guard case .redeemed(let second) = try Self.redeem(store, [2], "ana", at: "2021-04-01") else { Issue.record("not redeemed"); return }
        #expect(second.start == Self.day("2021-04-01"))
    }
}
