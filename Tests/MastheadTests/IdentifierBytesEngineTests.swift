import Masthead
import Testing

/// Ids are their exact bytes in the engine: two spellings of one name that Swift's `String ==`
/// takes for one (precomposed and decomposed, U+00C5 and U+212B) are two issues, two products,
/// two publications, two transactions; look-alikes (Cyrillic, fullwidth) are two as well.
struct IdentifierBytesEngineTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    /// Pairs of ids that must stay two: canonically equivalent spellings, then look-alikes.
    static let pairs: [(String, String)] = [
        (precomposed, decomposed), ("\u{C5}sa", "\u{212B}sa"), (precomposed, "c\u{430}f\u{E9}"), (precomposed, "\u{FF43}\u{FF41}\u{FF46}\u{E9}"),
    ]

    static func bytes(_ ids: [String]) -> [[UInt8]] { ids.map { Array($0.utf8) } }

    /// The Monthly with two more issues: `first` published in March, `second` in May.
    static func monthly(_ first: String, _ second: String) -> Publication {
        Mock.monthly(extraIssues: [
            Masthead.Issue(id: first, published: Mock.instant("2020-03-10T00:00")), Masthead.Issue(id: second, published: Mock.instant("2020-05-10T00:00")),
        ])
    }

    @Test(arguments: pairs) func issueIds_ofTwoSpellings_areTwoIssues(first: String, second: String) {
        let publication = Self.monthly(first, second)
        #expect(publication.issues.count == 14)
        let firstIndex = publication.index(ofIssue: first)
        let secondIndex = publication.index(ofIssue: second)
        #expect(firstIndex != nil && secondIndex != nil && firstIndex != secondIndex)
        #expect(secondIndex.map { Array(publication.issues[$0].id.utf8) } == Array(second.utf8))
        // Subscribed from February to April: the March issue only.
        let result = Mock.evaluate([Mock.renewal("a", "monthly", "2020-02-20T12:00", "2020-04-20T12:00")], at: "2020-07-01T00:00", publication: publication)
        #expect(result.access(toIssue: first)?.isReadable == true)
        #expect(result.access(toIssue: second)?.isReadable == false)
        // Correcting one leaves the other as it was.
        let corrected = publication.upserting(Masthead.Issue(id: second, title: "corrected", published: Mock.instant("2020-05-11T00:00")))
        #expect(corrected.issues.count == 14)
        #expect(corrected.index(ofIssue: first).map { corrected.issues[$0].published } == Mock.instant("2020-03-10T00:00"))
    }

    @Test(arguments: pairs) func singleIssueProduct_grantsItsIssue_notTheOtherSpelling(first: String, second: String) {
        let publication = Self.monthly(first, second)
        let catalog = Catalog(publications: [publication], products: [Product(productId: "one", publication: "the-monthly", issue: second)])
        let history = PurchaseHistory(transactions: [Mock.purchase("p", "one", "2020-06-01T00:00")])
        let result = EntitlementEngine(catalog: catalog).evaluate(history, publication: publication, at: Mock.instant("2020-07-01T00:00"))
        #expect(Self.bytes(result.readable.map(\.issue.id)) == Self.bytes([second]))
        #expect(result.access(toIssue: first)?.isReadable == false)
    }

    @Test(arguments: pairs) func keptAnswer_keepsEachSinglePurchaseId_ofTwoSpellings(first: String, second: String) {
        let issues = Mock.monthly().issues
        let catalog = Catalog(
            publications: [Mock.monthly()],
            products: [
                Product(productId: "one", publication: "the-monthly", issue: issues[4].id), Product(productId: "two", publication: "the-monthly", issue: issues[5].id),
            ])
        let history = PurchaseHistory(transactions: [Mock.purchase(first, "one", "2020-07-01T00:00"), Mock.purchase(second, "two", "2020-07-02T00:00")])
        let full = EntitlementEngine(catalog: catalog).evaluate(history, publication: Mock.monthly(), at: Mock.instant("2020-08-01T00:00"))
        func purchaseIds(_ entitlement: PublicationEntitlement) -> [[UInt8]] {
            entitlement.readable.flatMap(\.reasons).compactMap { reason in
                if case .singlePurchase(let id) = reason { Array(id.utf8) } else { nil }
            }
        }
        #expect(purchaseIds(full) == Self.bytes([first, second]))
        #expect(purchaseIds(full.keepingIssueDecisions()) == Self.bytes([first, second]))
        #expect(purchaseIds(KeptEntitlement(full).asOf(Mock.instant("2020-08-01T00:00"))) == Self.bytes([first, second]))
    }

    @Test(arguments: pairs) func productIds_ofTwoSpellings_areTwoProducts(known: String, unknown: String) {
        let catalog = Catalog(
            publications: [Mock.monthly()], products: [Product(productId: known, type: .autoRenewable, publications: ["the-monthly"], access: .archive)])
        #expect(catalog.product(unknown) == nil)
        let history = PurchaseHistory(transactions: [Mock.renewal("a", unknown, "2020-02-20T12:00", "2020-04-20T12:00")])
        let result = EntitlementEngine(catalog: catalog).evaluate(history, at: Mock.instant("2020-03-01T00:00"))
        #expect(result.publications.isEmpty)
        #expect(Self.bytes(result.unknownProductIds) == Self.bytes([unknown]))
        let one = EntitlementEngine(catalog: catalog).evaluate(history, publication: Mock.monthly(), at: Mock.instant("2020-03-01T00:00"))
        #expect(one.access(toIssue: "2020-03")?.isReadable == false)
    }

    @Test(arguments: pairs) func publicationIds_ofTwoSpellings_areTwoPublications(first: String, second: String) {
        let publications = [Publication(id: first, title: "first", issues: []), Publication(id: second, title: "second", issues: [])]
        let catalog = Catalog(publications: publications, products: [Product(productId: "p", type: .autoRenewable, publications: [second], access: .archive)])
        #expect(catalog.publication(first)?.title == "first")
        #expect(catalog.publication(second)?.title == "second")
        let history = PurchaseHistory(transactions: [Mock.renewal("a", "p", "2020-02-20T12:00", "2020-04-20T12:00")])
        let result = EntitlementEngine(catalog: catalog).evaluate(history, at: Mock.instant("2020-03-01T00:00"))
        #expect(result.publications.map(\.publication.title) == ["second"])
        let other = EntitlementEngine(catalog: catalog).evaluate(history, publication: publications[0], at: Mock.instant("2020-03-01T00:00"))
        #expect(other.status.state == .none)
    }

    /// Copies of one transaction merge (R2.3); two spellings of an id are two transactions, in a
    /// short history (compared in turn) and a long one (hashed).
    @Test(arguments: [0, 70]) func transactionIds_ofTwoSpellings_areTwoTransactions(others: Int) {
        var transactions = (0..<others).map { Mock.renewal("o\($0)", "monthly", "2019-01-01T00:00", "2019-02-01T00:00") }
        transactions += [
            Mock.renewal(Self.precomposed, "monthly", "2020-02-20T12:00", "2020-03-20T12:00"),
            Mock.renewal(Self.decomposed, "monthly", "2020-03-20T12:00", "2020-04-20T12:00"),
        ]
        let history = PurchaseHistory(transactions: transactions)
        #expect(history.transactions.count == others + 2)
        #expect(Self.bytes(history.transactions.suffix(2).map(\.transactionId)) == Self.bytes([Self.precomposed, Self.decomposed]))
    }

    @Test func renewalInfos_ofTwoSpellingsOfASubscription_areBothKept() {
        let renewals = [Self.precomposed, Self.decomposed].map { RenewalInfo(originalTransactionId: $0, productId: "monthly", autoRenewOn: false) }
        let history = PurchaseHistory(renewals: renewals)
        #expect(Self.bytes(history.renewals.compactMap(\.originalTransactionId)).sorted { $0.lexicographicallyPrecedes($1) }
            == Self.bytes([Self.decomposed, Self.precomposed]))
        let found = history.renewal(forOriginalTransaction: Self.decomposed, environment: .production, latestProductId: "monthly", asOf: Mock.instant("2020-01-01T00:00"))
        #expect(found?.originalTransactionId.map { Array($0.utf8) } == Array(Self.decomposed.utf8))
    }

    /// R9 by subscription: two subscriptions whose original transaction ids are two spellings
    /// are two subscriptions for the grace period too. The one in billing retry keeps its grace;
    /// the other, which expired later and is not retried, lends it neither its renewal info nor
    /// its expiry.
    @Test func graceExtension_ofTwoSpellingsOfASubscription_isDecidedForEach() {
        let transactions = [
            Mock.renewal("d1", "monthly", "2020-05-01T00:00", "2020-06-03T12:00", original: Self.decomposed),
            Mock.renewal("p1", "monthly", "2020-05-02T12:00", "2020-06-01T12:00", original: Self.precomposed),
        ]
        let retrying = RenewalInfo(
            originalTransactionId: Self.precomposed, productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: true,
            isInBillingRetry: true, gracePeriodExpires: Mock.instant("2020-06-17T12:00"), expirationIntent: "2")
        let gaveUp = RenewalInfo(originalTransactionId: Self.decomposed, productId: "monthly", autoRenewOn: false, expirationIntent: "1")
        let result = Mock.evaluate(transactions, renewals: [retrying, gaveUp], at: "2020-06-05T00:00")
        #expect(result.status.state == .gracePeriod)
        #expect(result.periods.last?.end == Mock.instant("2020-06-17T12:00"))
    }

    @Test(arguments: pairs) func exactKey_comparesHashesAndOrdersTheBytes(first: String, second: String) {
        #expect(ExactKey(first) != ExactKey(second))
        #expect(ExactKey(first) == ExactKey(String(decoding: Array(first.utf8), as: UTF8.self)))
        #expect(Set([ExactKey(first), ExactKey(second), ExactKey(first)]).count == 2)
        #expect((ExactKey(first) < ExactKey(second)) == Array(first.utf8).lexicographicallyPrecedes(Array(second.utf8)))
        #expect((ExactKey(first) < ExactKey(second)) != (ExactKey(second) < ExactKey(first)))
        #expect(!first.sameBytes(as: second))
    }

    /// Ids stored inline (up to 15 bytes) and on the heap, equal ones built apart, prefixes of
    /// each other, ids of one length differing in a single byte and canonically equivalent
    /// spellings: comparing and ordering them in place gives what comparing their byte arrays gives.
    @Test func sameBytesAndPrecedesInBytes_agreeWithTheByteArrays() {
        let long = "com.example.monthly.premium"
        let ids = [
            "", "a", "ab", "user-1", "user-10", String(repeating: "x", count: 15), String(repeating: "x", count: 16), long, long + "2",
            String(decoding: Array(long.utf8), as: UTF8.self), String(long.dropLast()), Self.precomposed, Self.decomposed, "\u{C5}sa", "\u{212B}sa",
            // Equal lengths differing in one byte: within the first eight, after them, in the last.
            "user-11", "xxxxxxxxyxxxxxxx", String(repeating: "x", count: 15) + "y", "yxxxxxxxxxxxxxxx", "com.example.monthly.premiun",
        ]
        for first in ids {
            for second in ids {
                #expect(first.sameBytes(as: second) == (Array(first.utf8) == Array(second.utf8)), "\(first) and \(second)")
                #expect(first.precedesInBytes(second) == Array(first.utf8).lexicographicallyPrecedes(Array(second.utf8)), "\(first) before \(second)")
            }
        }
    }
}
