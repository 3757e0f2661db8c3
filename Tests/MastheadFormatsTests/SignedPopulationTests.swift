import Foundation
import Masthead
import MastheadCrypto
import MastheadFormats
import MastheadJSON
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// `masthead generate --signed`: the same users as the receipts of the same seed, so that both
/// are decided alike, signed as Apple signs its data.
struct SignedPopulationTests {
    /// What an engine answers that a person would see: status, periods, refunds, readable issues
    /// and how long the answer holds, per publication.
    static func decisions(_ engine: EntitlementEngine, _ history: PurchaseHistory, at: Instant, _ environment: Environment) -> [String] {
        engine.evaluate(history, at: at, environment: environment).publications.map { entitlement in
            "\(entitlement.status.state) \(entitlement.publication.id) \(entitlement.status) \(entitlement.periods) \(entitlement.refunded) "
                + "\(entitlement.readable) \(entitlement.stable)"
        }
    }

    /// The receipts' history with the revocation types and shares the signed data gives (receipts
    /// cannot carry them, R5.3).
    static func withRevocationTypes(of signed: PurchaseHistory, _ receipts: PurchaseHistory) -> PurchaseHistory {
        let types = Dictionary(
            signed.transactions.map { (ExactKey($0.transactionId), ($0.revocationType, $0.revocationPercentage)) }, uniquingKeysWith: { first, _ in first })
        return PurchaseHistory(
            transactions: receipts.transactions.map { transaction in
                var typed = transaction
                if let (type, percentage) = types[ExactKey(transaction.transactionId)] {
                    typed.revocationType = type
                    typed.revocationPercentage = percentage
                }
                return typed
            }, renewals: receipts.renewals)
    }

    /// Each signed user of `population` (seed 11) with their receipt, verified and decoded.
    static func users(_ population: SyntheticPopulation, count: Int) throws -> [(signed: PurchaseHistory, receipt: PurchaseHistory)] {
        let chain = try Certificate.certificates(pem: String(contentsOf: TestChain.directory.appendingPathComponent("chain.pem"), encoding: .utf8))
        let signer = try JWSSigner(key: TestChain.signer().key, certificateChain: chain, deterministic: true)
        let verifier = SignedDataVerifier(
            trust: .verifySignatures(try JWSVerifier(rootCertificates: [TestChain.root()])),
            app: AppIdentity(bundleId: "com.example.magazine", environments: [.production, .sandbox]), catalog: population.catalog,
            now: { Instant(milliseconds: 1_593_648_000_000) })
        let decoder = ReceiptDecoder(catalog: population.catalog)
        var receipts = SeededGenerator(seed: 11)
        var signed = SeededGenerator(seed: 11)
        var users: [(signed: PurchaseHistory, receipt: PurchaseHistory)] = []
        for user in 0..<count {
            let receipt = try decoder.decode(try JSONDocument(parsing: population.receipt(user: user, random: &receipts)).root, path: "$")
            let signedUser = population.signedUser(user: user, bundleId: "com.example.magazine", random: &signed)
            let line = try JSONDocument(parsing: try signedUser.line(signer: signer)).root
            #expect(line.member("user_id")?.string == "user-\(user)")
            guard case .transactions(let transactions, let renewals)? = try SignedDataDocument.read(line) else {
                Issue.record("user \(user): not a signed-transactions document")
                continue
            }
            let history = try verifier.history(signedTransactions: transactions, signedRenewalInfos: renewals, path: "$")
            #expect(Set(history.transactions.map(\.transactionId)) == Set(receipt.history.transactions.map(\.transactionId)), "user \(user)")
            users.append((history, receipt.history))
        }
        return users
    }

    static let instants = ["2020-06-30T00:00:00Z", "2021-06-30T00:00:00Z", "2022-12-31T00:00:00Z"].map { DateText.rfc3339($0)! }

    /// Every refund is a full one (R5.1), as the receipts read theirs: both are decided alike,
    /// but for the type the refunds list names.
    @Test func signedUsers_verify_andAreDecidedLikeTheirReceipts() throws {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        let population = SyntheticPopulation(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        var seen: Set<String> = []
        var refunds = 0
        for (index, user) in try Self.users(population, count: 120).enumerated() {
            for transaction in user.signed.transactions where transaction.cancellation != nil && !transaction.isUpgraded {
                #expect(transaction.revocationType == .refundFull && transaction.revocationPercentage == 100_000)
                refunds += 1
            }
            let receipt = Self.withRevocationTypes(of: user.signed, user.receipt)
            for at in Self.instants {
                for environment in [Environment.production, .sandbox] {
                    let fromSigned = Self.decisions(engine, user.signed, at: at, environment)
                    #expect(fromSigned == Self.decisions(engine, receipt, at: at, environment), "user \(index) at \(at)")
                    fromSigned.forEach { seen.insert(String($0.prefix { $0 != " " })) }
                }
            }
        }
        // The users are varied: several statuses are met, and refunds.
        #expect(seen.count >= 3, "\(seen)")
        #expect(refunds > 0)
    }

    /// With ``SyntheticPopulation/endingRevocations``, prorated refunds and Family Sharing
    /// revocations are drawn (R5.3): the signed users are decided like their receipts given the
    /// types the signed data carries, and some read other issues than the receipts alone give.
    @Test func endingRevocations_signedUsersCarryTheirTypes_R5_3() throws {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        var population = SyntheticPopulation(catalog: catalog)
        population.endingRevocations = true
        let engine = EntitlementEngine(catalog: catalog)
        var types: [String: Int] = [:]
        var decidedApart = 0
        for (index, user) in try Self.users(population, count: 200).enumerated() {
            for transaction in user.signed.transactions where transaction.cancellation != nil && !transaction.isUpgraded {
                types[transaction.revocationType?.rawValue ?? "none", default: 0] += 1
                #expect((0...100_000).contains(transaction.revocationPercentage ?? 0))
            }
            let receipt = Self.withRevocationTypes(of: user.signed, user.receipt)
            for at in Self.instants {
                let fromSigned = Self.decisions(engine, user.signed, at: at, .production)
                #expect(fromSigned == Self.decisions(engine, receipt, at: at, .production), "user \(index) at \(at)")
                // R5.3 changes what is readable, not only the refunds' labels.
                let access = { (history: PurchaseHistory) in
                    engine.evaluate(history, at: at).publications.map { "\($0.periods) \($0.readable)" }
                }
                if access(user.signed) != access(user.receipt) { decidedApart += 1 }
            }
        }
        #expect(types["REFUND_FULL", default: 0] > 0 && types["REFUND_PRORATED", default: 0] > 0 && types["FAMILY_REVOKE", default: 0] > 0, "\(types)")
        #expect(decidedApart > 0)
    }
}
