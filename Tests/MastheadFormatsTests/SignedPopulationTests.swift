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

    @Test func signedUsers_verify_andAreDecidedLikeTheirReceipts() throws {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        let population = SyntheticPopulation(catalog: catalog)
        let chain = try Certificate.certificates(pem: String(contentsOf: TestChain.directory.appendingPathComponent("chain.pem"), encoding: .utf8))
        let signer = try JWSSigner(key: TestChain.signer().key, certificateChain: chain, deterministic: true)
        let verifier = SignedDataVerifier(
            trust: .verifySignatures(try JWSVerifier(rootCertificates: [TestChain.root()])),
            app: AppIdentity(bundleId: "com.example.magazine", environments: [.production, .sandbox]), catalog: catalog,
            now: { Instant(milliseconds: 1_593_648_000_000) })
        let engine = EntitlementEngine(catalog: catalog)
        let decoder = ReceiptDecoder(catalog: catalog)
        var receipts = SeededGenerator(seed: 11)
        var signed = SeededGenerator(seed: 11)
        var seen: Set<String> = []
        for user in 0..<120 {
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
            for text in ["2020-06-30T00:00:00Z", "2021-06-30T00:00:00Z", "2022-12-31T00:00:00Z"] {
                let at = try #require(DateText.rfc3339(text))
                for environment in [Environment.production, .sandbox] {
                    let fromSigned = Self.decisions(engine, history, at: at, environment)
                    #expect(fromSigned == Self.decisions(engine, receipt.history, at: at, environment), "user \(user) at \(text)")
                    fromSigned.forEach { seen.insert(String($0.prefix { $0 != " " })) }
                }
            }
        }
        // The users are varied: several statuses are met.
        #expect(seen.count >= 3, "\(seen)")
    }
}
