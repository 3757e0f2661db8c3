import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// A user's stored history (``StoredHistory``) gives back every field of every transaction,
/// renewal info and grant, in order and by their exact bytes, and refuses bytes that are not a
/// whole history with an error naming the user.
struct StoredHistoryTests {
    /// Precomposed and decomposed spellings of one id: two ids.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// A seeded history: every optional field set or left out at random (all set when `full`,
    /// none when `empty`), strings of both spellings of `café`, Google Play-like and App Store ids.
    static func history(_ random: inout SeededGenerator, full: Bool = false, empty: Bool = false) -> PurchaseHistory {
        func some<Value>(_ value: @autoclosure () -> Value) -> Value? {
            if full { return value() }
            if empty { return nil }
            return random.chance(50) ? value() : nil
        }
        func text(_ prefix: String) -> String {
            [prefix, "\(prefix)-\(random.below(1000))", Self.composed, Self.decomposed, "\(prefix) \u{1F4F0}", ""][random.below(6)]
        }
        func instant() -> Instant { Instant(milliseconds: Int64(random.below(2_000_000_000)) * 1000 - 1_000_000_000_000) }
        var transactions: [Transaction] = []
        for index in 0..<random.below(24) {
            let id = index % 5 == 0 ? (index % 10 == 0 ? Self.composed : Self.decomposed) : "t\(index)"
            transactions.append(
                Transaction(
                    transactionId: "\(id)-\(index)", originalTransactionId: text("o"), productId: text("p"), purchase: instant(),
                    expires: some(instant()), cancellation: some(instant()), isUpgraded: random.chance(50), isTrial: random.chance(50),
                    isIntroductoryOffer: random.chance(50), offer: some(OfferKind.allCases[random.below(OfferKind.allCases.count)]),
                    environment: random.chance(50) ? .production : .sandbox, signedDate: some(instant()), unsignedCancellation: some(instant()),
                    revocationType: some(RevocationType(rawValue: text("REFUND"))), revocationPercentage: some(Int32(random.below(100_001))),
                    terms: some(
                        PurchaseTerms(
                            offerType: some(Int32(random.below(4))), offerIdentifier: some(text("offer")), offerPeriod: some("P1M"),
                            appTransactionId: some(text("app")), billingPlanType: some(text("plan")),
                            commitment: some(
                                PurchaseCommitment(
                                    billingPeriodNumber: some(Int32(random.below(12))), totalBillingPeriods: some(Int32.max),
                                    expires: some(instant()), price: some(Int64.min + Int64(random.below(10))))))))
            )
        }
        var renewals: [RenewalInfo] = []
        for _ in 0..<random.below(6) {
            renewals.append(
                RenewalInfo(
                    environment: random.chance(50) ? .production : .sandbox, originalTransactionId: some(text("o")), productId: some(text("p")),
                    autoRenewProductId: some(text("p")), autoRenewOn: some(random.chance(50)), isInBillingRetry: random.chance(50),
                    gracePeriodExpires: some(instant()), expirationIntent: some(text("intent")), evidence: some(instant()),
                    terms: some(
                        RenewalTerms(
                            appAccountToken: some(text("token")), appTransactionId: some(text("app")), offerType: some(Int32(-1)),
                            offerIdentifier: some(text("offer")), offerPeriod: some(text("P")),
                            eligibleWinBackOfferIds: some((0..<random.below(3)).map { _ in text("winback") }),
                            renewalBillingPlanType: some(text("plan")),
                            commitment: some(
                                RenewalCommitment(
                                    autoRenewProductId: some(text("p")), autoRenewStatus: some(Int32.min), renewalBillingPlanType: some(text("plan")),
                                    renewalDate: some(instant()), renewalPrice: some(Int64.max))))))
            )
        }
        var grants: [Grant] = []
        for index in 0..<random.below(5) {
            let scope: Grant.Scope =
                random.chance(50)
                ? .span(
                    publications: [Self.composed, Self.decomposed, "p\(index)"].prefix(1 + random.below(3)).map { $0 },
                    access: random.chance(50) ? .archive : .streaming, window: some(1 + random.below(Grant.maxWindow)))
                : .issues(publication: text("pub"), issueIds: (0...random.below(3)).map { "i\($0)" } + [Self.composed])
            grants.append(
                Grant(
                    grantId: index % 2 == 0 ? "\(Self.composed)\(index)" : "\(Self.decomposed)\(index)", source: text("comp"), scope: scope,
                    start: instant(), end: some(instant()), revokedAt: some(instant())))
        }
        return PurchaseHistory(transactions: transactions, renewals: renewals, grants: grants)
    }

    /// Every id of a history, as the bytes of its UTF-8, in order.
    static func idBytes(_ history: PurchaseHistory) -> [[UInt8]] {
        var ids: [String] = []
        for transaction in history.transactions { ids += [transaction.transactionId, transaction.originalTransactionId, transaction.productId] }
        for renewal in history.renewals { ids += [renewal.originalTransactionId ?? "-", renewal.productId ?? "-"] }
        for grant in history.grants { ids += [grant.grantId, grant.source] + grant.publications }
        return ids.map { Array($0.utf8) }
    }

    /// Seeded histories with fields set and unset come back equal, with the same bytes, the
    /// same ids byte for byte, and encode to the same bytes again.
    @Test(arguments: 0..<3)
    func generatedHistories_roundTrip_giveTheSameHistoryByExactBytes(kind: Int) throws {
        var random = SeededGenerator(seed: 20 + UInt64(kind))
        for _ in 0..<200 {
            let history = Self.history(&random, full: kind == 1, empty: kind == 2)
            let bytes = StoredHistory.bytes(history)
            let decoded = try #require(try StoredHistory.history(bytes, userId: "u"))
            #expect(decoded == history)
            #expect(Self.idBytes(decoded) == Self.idBytes(history))
            #expect(decoded.transactions.map(\.terms) == history.transactions.map(\.terms))
            #expect(decoded.renewals.map(\.terms) == history.renewals.map(\.terms))
            #expect(StoredHistory.bytes(decoded) == bytes)
        }
    }

    /// Both spellings of `café` stay two transactions and two grants, each with its own bytes.
    @Test
    func bothSpellingsOfAnId_roundTrip_stayApart() throws {
        let history = PurchaseHistory(
            transactions: [
                Transaction(transactionId: Self.composed, productId: "monthly", purchase: Instant(milliseconds: 1)),
                Transaction(transactionId: Self.decomposed, productId: "monthly", purchase: Instant(milliseconds: 1)),
            ],
            grants: [
                Grant(grantId: Self.composed, source: "comp", scope: .issues(publication: "p", issueIds: ["i"]), start: Instant(milliseconds: 0)),
                Grant(grantId: Self.decomposed, source: "comp", scope: .issues(publication: "p", issueIds: ["i"]), start: Instant(milliseconds: 0)),
            ])
        let decoded = try #require(try StoredHistory.history(StoredHistory.bytes(history), userId: "u"))
        #expect(decoded.transactions.map { Array($0.transactionId.utf8) } == history.transactions.map { Array($0.transactionId.utf8) })
        #expect(Set(decoded.transactions.map { Array($0.transactionId.utf8) }) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])
        #expect(Set(decoded.grants.map { Array($0.grantId.utf8) }) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])
    }

    /// The stored properties of a value, by name, as `Mirror` lists them.
    static func fields(_ value: Any) -> [String] { Mirror(reflecting: value).children.map { $0.label ?? "?" } }

    /// The format writes every stored property of every type a history holds, and only these: a
    /// property added to one of them must be written by ``StoredHistory`` (and named here), or a
    /// stored history would drop it and answer otherwise than the tables.
    @Test
    func everyPropertyOfAHistory_isOneTheFormatWrites() throws {
        var random = SeededGenerator(seed: 21)
        var history = Self.history(&random, full: true)
        while history.transactions.isEmpty || history.renewals.isEmpty || history.grants.isEmpty { history = Self.history(&random, full: true) }
        let transaction = history.transactions[0]
        let renewal = history.renewals[0]
        let purchaseTerms = try #require(transaction.terms)
        let renewalTerms = try #require(renewal.terms)
        #expect(Self.fields(history) == ["transactions", "renewals", "grants"])
        #expect(
            Self.fields(transaction) == [
                "transactionId", "originalTransactionId", "productId", "purchase", "expires", "cancellation", "revocationType",
                "revocationPercentage", "isUpgraded", "isTrial", "isIntroductoryOffer", "offer", "environment", "signedDate",
                "unsignedCancellation", "_terms",
            ])
        #expect(
            Self.fields(renewal) == [
                "environment", "originalTransactionId", "productId", "autoRenewProductId", "autoRenewOn", "isInBillingRetry",
                "gracePeriodExpires", "expirationIntent", "evidence", "_terms",
            ])
        #expect(Self.fields(purchaseTerms) == ["offer", "appTransactionId", "billingPlanType", "commitment"])
        #expect(Self.fields(try #require(purchaseTerms.commitment)) == ["billingPeriodNumber", "totalBillingPeriods", "expires", "price"])
        #expect(Self.fields(purchaseTerms.offer) == ["type", "identifier", "period"])
        #expect(
            Self.fields(renewalTerms) == ["appAccountToken", "appTransactionId", "offer", "eligibleWinBackOfferIds", "renewalBillingPlanType", "commitment"])
        #expect(
            Self.fields(try #require(renewalTerms.commitment)) == [
                "autoRenewProductId", "autoRenewStatus", "renewalBillingPlanType", "renewalDate", "renewalPrice",
            ])
        #expect(Self.fields(history.grants[0]) == ["grantId", "source", "scope", "start", "end", "revokedAt"])
    }

    /// The problem a refused row's error names, or nil when the bytes were read.
    static func problem(_ bytes: [UInt8]) -> String? {
        do {
            _ = try StoredHistory.history(bytes, userId: "reader-7")
            return nil
        } catch {
            guard case .storedHistory(let userId, let problem) = error, userId == "reader-7" else { return "wrong error: \(error)" }
            #expect(error.description.hasPrefix("the stored history of user reader-7 is unreadable: "))
            return problem
        }
    }

    /// Every prefix of a row is refused.
    @Test
    func truncatedRow_isRefused_namingTheUser() throws {
        var random = SeededGenerator(seed: 9)
        let bytes = StoredHistory.bytes(Self.history(&random, full: true))
        for length in 0..<bytes.count {
            #expect(Self.problem(Array(bytes.prefix(length))) != nil, "a row cut to \(length) of \(bytes.count) bytes")
        }
    }

    /// A row with any one byte changed is refused (the checksum), and one with a byte added.
    @Test
    func alteredRow_isRefused() throws {
        var random = SeededGenerator(seed: 10)
        let bytes = StoredHistory.bytes(Self.history(&random, full: true))
        for offset in 1..<bytes.count {
            var altered = bytes
            altered[offset] ^= UInt8(1 + random.below(255))
            #expect(Self.problem(altered) != nil, "byte \(offset) of \(bytes.count) altered")
        }
        #expect(Self.problem(bytes + [0]) != nil)
    }

    /// A row whose checksum was made again over bad contents is still refused, saying what is
    /// wrong: a count past the end, a flag that is not 0 or 1, a string not UTF-8, an unknown
    /// environment, bytes left over.
    @Test
    func rowWithBadContents_isRefused_sayingWhatIsWrong() throws {
        let history = PurchaseHistory(
            transactions: [Transaction(transactionId: "t", productId: "monthly", purchase: Instant(milliseconds: 1))])
        let bytes = StoredHistory.bytes(history)
        /// The row with its contents (between the version byte and the checksum) changed by `change`.
        func resealed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var contents = Array(bytes.dropLast(8))
            change(&contents)
            let sum = contents.withUnsafeBufferPointer { StoredHistory.checksum($0) }
            return contents + (0..<8).map { UInt8(truncatingIfNeeded: sum >> UInt64(8 * $0)) }
        }
        #expect(Self.problem(resealed { _ in }) == nil)
        // The transaction count (offset 1) says 1,000,000.
        #expect(Self.problem(resealed { $0.replaceSubrange(1..<5, with: [0x40, 0x42, 0x0F, 0]) })?.contains("counts 1000000") == true)
        // The transaction id's length (offset 5) says 2^31 - 1.
        #expect(Self.problem(resealed { $0.replaceSubrange(5..<9, with: [0xFF, 0xFF, 0xFF, 0x7F]) })?.contains("a transaction id") == true)
        // The transaction id's one byte is not UTF-8.
        #expect(Self.problem(resealed { $0[9] = 0xFF })?.contains("is not UTF-8") == true)
        // The expiry's presence (after the version, the count, the ids "t", "t" and "monthly", and the purchase date) is 2.
        #expect(Self.problem(resealed { $0[1 + 4 + 5 + 5 + 11 + 8] = 2 })?.contains("is 2, not 0 or 1") == true)
        // The environment's first letter is changed.
        let environment = try #require(bytes.firstRange(of: Array("production".utf8)))
        #expect(Self.problem(resealed { $0[environment.lowerBound] = UInt8(ascii: "q") })?.contains("an environment") == true)
        #expect(Self.problem(resealed { $0.append(7) })?.contains("1 bytes after the grants") == true)
    }

    /// A read-only store on a database of the schema before `user_histories` (nothing migrates
    /// it) reads histories from the tables; one on a migrated database reads the rows.
    @Test(arguments: StoreBackend.tested)
    func readOnlyStore_onTheSchemaBefore_readsTheTables(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        try fixture.migrate(sqlite: SQLiteSchema.migrator.migrations.count - 1, postgreSQL: PostgreSQLSchema.migrator.migrations.count - 1)
        let earlier = try fixture.openReadOnly()
        #expect(try earlier.history(forUser: "u").transactions.isEmpty)
        #expect((earlier as? SQLiteStore)?.storesHistories ?? (earlier as? PostgreSQLStore)?.storesHistories == false)
        _ = try fixture.open()
        let migrated = try fixture.openReadOnly()
        #expect((migrated as? SQLiteStore)?.storesHistories ?? (migrated as? PostgreSQLStore)?.storesHistories == true)
    }

    /// A row of another format version is not read: the history comes from the tables.
    @Test
    func rowOfAnotherVersion_isNotRead() throws {
        var bytes = StoredHistory.bytes(PurchaseHistory())
        bytes[0] = StoredHistory.version + 1
        #expect(try StoredHistory.history(bytes, userId: "u") == nil)
    }
}
