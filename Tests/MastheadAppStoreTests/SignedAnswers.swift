import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadFormats
import MastheadTestSupport
import Synchronization

/// Signed data for the fake App Store Server API, and clients pointed at it.
enum SignedAnswers {
    static let bundleId = "com.example.magazine"
    static let day: Int64 = 86_400_000

    /// A signed auto-renewable transaction from `from` to `to` (milliseconds).
    static func transaction(_ id: String, original: String, from: Int64, to: Int64, environment: String = "Production") throws -> String {
        try TestChain.sign(
            #"{"transactionId": "\#(id)", "originalTransactionId": "\#(original)", "bundleId": "\#(bundleId)", "productId": "com.example.monthly", "purchaseDate": \#(from), "originalPurchaseDate": \#(from), "expiresDate": \#(to), "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": \#(from), "environment": "\#(environment)"}"#
        )
    }

    /// A signed renewal info.
    static func renewal(original: String, signed: Int64, environment: String = "Production") throws -> String {
        try TestChain.sign(
            #"{"originalTransactionId": "\#(original)", "productId": "com.example.monthly", "autoRenewProductId": "com.example.monthly", "autoRenewStatus": 1, "signedDate": \#(signed), "environment": "\#(environment)"}"#
        )
    }

    /// A signed version 2 notification payload carrying `transaction`.
    static func notification(_ uuid: String, transaction: String, signed: Int64) throws -> String {
        try TestChain.sign(
            #"{"notificationType": "DID_RENEW", "notificationUUID": "\#(uuid)", "version": "2.0", "signedDate": \#(signed), "data": {"bundleId": "\#(bundleId)", "environment": "Production", "signedTransactionInfo": "\#(transaction)"}}"#
        )
    }

    /// The verifier clients use: the test chain's root, the app, both environments.
    static func verifier(environments: Set<AppStoreEnvironment> = [.production, .sandbox]) throws -> SignedDataVerifier {
        SignedDataVerifier(
            trust: .verifySignatures(try JWSVerifier(rootCertificates: [TestChain.root()])),
            app: AppIdentity(bundleId: bundleId, environments: environments), now: { Instant(milliseconds: 1_593_648_000_000) })
    }

    /// The fake's credentials.
    static func credentials(keyPath: String = FakeAppStoreServerAPI.privateKeyPath, issuerId: String = FakeAppStoreServerAPI.issuerId) throws -> AppStoreCredentials {
        try AppStoreCredentials(keyId: FakeAppStoreServerAPI.keyId, issuerId: issuerId, privateKeyFile: keyPath)
    }

    /// A client of `fake` whose waits are recorded by `sleeps` instead of slept.
    static func client(
        _ fake: FakeAppStoreServerAPI, sleeps: Sleeps = Sleeps(), credentials: AppStoreCredentials? = nil, transport: HTTPSTransport = HTTPSTransport(),
        now: (@Sendable () -> Int64)? = nil, environments: Set<AppStoreEnvironment> = [.production, .sandbox],
        configure: (inout AppStoreServerAPIClient.Configuration) -> Void = { _ in }
    ) throws -> AppStoreServerAPIClient {
        var configuration = AppStoreServerAPIClient.Configuration()
        configuration.productionURL = fake.productionURL
        configuration.sandboxURL = fake.sandboxURL
        configuration.allowsHTTP = true
        configuration.backoffMilliseconds = 10
        configuration.maxWaitMilliseconds = 5000
        configure(&configuration)
        return try AppStoreServerAPIClient(
            credentials: credentials ?? Self.credentials(), verifier: verifier(environments: environments), configuration: configuration, transport: transport, now: now,
            sleep: { milliseconds in sleeps.waits.withLock { $0.append(milliseconds) } })
    }

    /// Now, in milliseconds.
    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// The waits a client asked for.
final class Sleeps: Sendable {
    let waits = Mutex<[Int]>([])
    var recorded: [Int] { waits.withLock { $0 } }
}

/// A settable clock for a client's tokens, in milliseconds.
final class TokenClock: Sendable {
    let value: Mutex<Int64>
    init(_ milliseconds: Int64) { value = Mutex(milliseconds) }
    func read() -> Int64 { value.withLock { $0 } }
    func advance(minutes: Int64) { value.withLock { $0 += minutes * 60_000 } }
}
