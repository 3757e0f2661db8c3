import Foundation
import Masthead
import MastheadStorage
import MastheadTestSupport
import Testing

/// Both stores keep two spellings of one name that Swift's `String ==` takes for one
/// (precomposed and decomposed) as two ids: two users, two subscriptions, two issues; the owner
/// checks of `link` and of app account tokens compare the bytes.
struct IdentifierBytesStoreTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let now = Instant(milliseconds: 10)

    static func transaction(_ original: String) -> Transaction {
        Transaction(transactionId: original, productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000))
    }

    /// The bytes of the owner an in-use error names.
    static func owner(_ error: StorageError?) -> [UInt8]? {
        switch error {
        case .receiptAlreadyInUse(_, _, let userId)?, .appAccountTokenInUse(_, let userId)?: Array(userId.utf8)
        default: nil
        }
    }

    /// Ids as their bytes, the only way to compare them here (`[String] ==` takes the spellings for one).
    static func bytes(_ ids: [String]) -> [[UInt8]] { ids.map { Array($0.utf8) } }

    @Test(arguments: StoreBackend.tested) func link_underKeep_refusesTheOtherSpelling(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.save(transactions: [Self.transaction("s1")], renewals: [])
        #expect(try store.link(userId: Self.precomposed, transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .keep, now: Self.now).isEmpty)
        let refused = #expect(throws: StorageError.self) {
            _ = try store.link(userId: Self.decomposed, transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .keep, now: Self.now)
        }
        #expect(Self.owner(refused) == Array(Self.precomposed.utf8))
        #expect(Self.bytes(try store.users(linkedTo: ["s1"], environment: .production)) == Self.bytes([Self.precomposed]))
        #expect(try store.history(forUser: Self.decomposed).transactions.isEmpty)
        #expect(try store.history(forUser: Self.precomposed).transactions.map(\.transactionId) == ["s1"])
    }

    @Test(arguments: StoreBackend.tested) func link_underTransfer_namesTheOtherSpellingAsThePreviousOwner(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.save(transactions: [Self.transaction("s1")], renewals: [])
        _ = try store.link(userId: Self.precomposed, transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .transfer, now: Self.now)
        let previous = try store.link(userId: Self.decomposed, transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .transfer, now: Self.now)
        #expect(Self.bytes(previous) == Self.bytes([Self.precomposed]))
        #expect(Self.bytes(try store.users(linkedTo: ["s1"], environment: .production)) == Self.bytes([Self.decomposed]))
    }

    @Test(arguments: StoreBackend.tested) func appAccountToken_ofOneSpelling_isInUseForTheOther(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.linkAppAccountToken(Self.token, userId: Self.precomposed, now: Self.now)
        let refused = #expect(throws: StorageError.self) {
            _ = try store.linkAppAccountToken(Self.token, userId: Self.decomposed, now: Self.now)
        }
        #expect(Self.owner(refused) == Array(Self.precomposed.utf8))
        #expect(try store.unlinkAppAccountToken(Self.token, userId: Self.decomposed) == nil)
        #expect(try store.userId(forAppAccountToken: Self.token).map { Array($0.utf8) } == Array(Self.precomposed.utf8))
        #expect(try store.appAccountTokens(forUser: Self.decomposed).isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func twoSpellings_ofSubscriptionsAndIssues_areTwoRows(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let (first, second) = ("s\u{E9}", "se\u{301}")
        try store.save(transactions: [Self.transaction(first), Self.transaction(second)], renewals: [])
        // One user's receipt holding both: two subscriptions linked.
        _ = try store.link(userId: "ana", transactions: [Self.transaction(first), Self.transaction(second)], latestReceipt: nil, restore: .keep, now: Self.now)
        #expect(Self.bytes(try store.history(forUser: "ana").transactions.map(\.transactionId)).sorted { $0.lexicographicallyPrecedes($1) }
            == Self.bytes([first, second]).sorted { $0.lexicographicallyPrecedes($1) })
        // Each moved to a user of its own spelling: both users are found, each once.
        _ = try store.link(userId: Self.precomposed, transactions: [Self.transaction(first)], latestReceipt: nil, restore: .transfer, now: Self.now)
        _ = try store.link(userId: Self.decomposed, transactions: [Self.transaction(second)], latestReceipt: nil, restore: .transfer, now: Self.now)
        #expect(Self.bytes(try store.users(linkedTo: [first, second], environment: .production)) == Self.bytes([Self.decomposed, Self.precomposed]))
        for (id, published) in [(first, 1), (second, 2)] {
            try store.upsertIssue(publicationId: "the-monthly", issue: Masthead.Issue(id: id, published: Instant(milliseconds: Int64(published))))
        }
        #expect(Self.bytes(try store.publishedIssues().map(\.issue.id)) == Self.bytes([first, second]))
    }
}
