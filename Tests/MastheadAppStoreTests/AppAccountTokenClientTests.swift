import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadFormats
import MastheadJSON
import MastheadTestSupport
import Synchronization
import Testing

/// Set App Account Token and Get App Transaction Info against the fake: the request as Apple
/// documents it, its token, Apple's errors, and the signed answer verified.
struct AppAccountTokenClientTests {
    static let token = UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!

    /// A signed app transaction of the test app; `extra` members are added at the end.
    static func appTransaction(receiptType: String = "Production", bundleId: String = SignedAnswers.bundleId, extra: String = "") throws -> String {
        try TestChain.sign(
            #"{"receiptType": "\#(receiptType)", "appAppleId": 1234567890, "bundleId": "\#(bundleId)", "applicationVersion": "2.1", "versionExternalIdentifier": 871234, "receiptCreationDate": 1593648000000, "originalPurchaseDate": 1580515200000, "originalApplicationVersion": "1.0", "deviceVerification": "dGVzdA==", "deviceVerificationNonce": "9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D", "preorderDate": 1577836800000, "appTransactionId": "704289572311", "originalPlatform": "iOS"\#(extra)}"#
        )
    }

    /// The claims of the bearer token a request carried.
    static func claims(_ seen: FakeAppStoreServerAPI.Seen) throws -> JSONValue {
        let token = try #require(seen.token)
        let payload = try #require(token.split(separator: ".").dropFirst().first)
        return try JSONDocument(parsing: Base64.decode(String(payload), .url)).root
    }

    @Test func setAppAccountToken_putsTheTokenAsJSON_signedForTheApp() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        try SignedAnswers.client(fake).setAppAccountToken(originalTransactionId: "o1", appAccountToken: Self.token, environment: .production)
        let seen = try #require(fake.seen.first)
        #expect(fake.seen.count == 1)
        #expect(seen.method == "PUT")
        #expect(seen.target == "/production/inApps/v1/transactions/o1/appAccountToken")
        #expect(seen.body == #"{"appAccountToken":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}"#)
        #expect(seen.refusal == nil)
        let claims = try Self.claims(seen)
        #expect(claims.member("iss")?.string == FakeAppStoreServerAPI.issuerId)
        #expect(claims.member("aud")?.string == "appstoreconnect-v1")
        #expect(claims.member("bid")?.string == SignedAnswers.bundleId)
        #expect((claims.member("exp")?.int64 ?? 0) > (claims.member("iat")?.int64 ?? .max))
        #expect(fake.state.withLock { $0.production.appAccountTokens } == ["o1": "3f2504e0-4f89-41d3-9a0c-0305e82c3301"])
    }

    @Test func setAppAccountToken_asksTheEnvironmentGivenOnly() throws {
        let fake = try AppStoreServerAPIClientTests.fake(environment: "Sandbox")
        defer { fake.stop() }
        try SignedAnswers.client(fake).setAppAccountToken(originalTransactionId: "o1", appAccountToken: Self.token, environment: .sandbox)
        #expect(fake.seen.map(\.target) == ["/sandbox/inApps/v1/transactions/o1/appAccountToken"])
        #expect(fake.state.withLock { $0.sandbox.appAccountTokens["o1"] } == "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
    }

    @Test func setAppAccountToken_unknownTransaction_isRefused_namingAppleError() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        let expected = AppStoreError.refused(
            endpoint: "PUT /inApps/v1/transactions/nobody/appAccountToken (Production)", status: 404, errorCode: 4_040_010,
            errorMessage: "Transaction id not found.")
        #expect(throws: expected) {
            try SignedAnswers.client(fake).setAppAccountToken(originalTransactionId: "nobody", appAccountToken: Self.token, environment: .production)
        }
        #expect(expected.appleErrorName == "TransactionIdNotFoundError")
        #expect(expected.description.contains("error 4040010 (TransactionIdNotFoundError): Transaction id not found."))
        // Not asked again in the sandbox: the subscription's environment is known.
        #expect(fake.seen.count == 1)
    }

    @Test(arguments: [
        (4_000_183, "InvalidAppAccountTokenUUIDError"), (4_000_185, "FamilyTransactionNotSupportedError"),
        (4_000_043, "InvalidTransactionNotConsumableError"), (4_000_187, "TransactionIdIsNotOriginalTransactionIdError"),
    ])
    func setAppAccountToken_appleRefusals_areClearErrors_notRetried(code: Int, name: String) throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.appleErrors = [(400, code)] }
        let client = try SignedAnswers.client(fake)
        do {
            try client.setAppAccountToken(originalTransactionId: "o1", appAccountToken: Self.token, environment: .production)
            Issue.record("Apple's refusal was taken as success")
        } catch {
            #expect(error == .refused(endpoint: "PUT /inApps/v1/transactions/o1/appAccountToken (Production)", status: 400, errorCode: Int64(code), errorMessage: "Error on demand."))
            #expect(error.appleErrorName == name)
            #expect(error.description.contains("HTTP 400, error \(code) (\(name))"))
        }
        #expect(fake.seen.count == 1)
        #expect(fake.state.withLock { $0.production.appAccountTokens }.isEmpty)
    }

    @Test func setAppAccountToken_serverError_isRetried_thenSent() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(500, nil)] }
        let sleeps = Sleeps()
        try SignedAnswers.client(fake, sleeps: sleeps).setAppAccountToken(originalTransactionId: "o1", appAccountToken: Self.token, environment: .production)
        #expect(fake.seen.map(\.method) == ["PUT", "PUT"])
        #expect(fake.seen.map(\.body) == Array(repeating: #"{"appAccountToken":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}"#, count: 2))
        #expect(sleeps.recorded == [10])
        #expect(fake.state.withLock { $0.production.appAccountTokens["o1"] } != nil)
    }

    @Test func appTransactionInfo_answersTheVerifiedAppTransaction_everyField() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        let signed = try Self.appTransaction()
        fake.state.withLock { $0.production.appTransactions["t2"] = signed }
        let app = try SignedAnswers.client(fake).appTransactionInfo(transactionId: "t2", servers: .only(.production))
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/transactions/appTransactions/t2"])
        #expect(fake.seen.map(\.method) == ["GET"])
        #expect(fake.seen.first?.refusal == nil)
        var expected = JWSAppTransactionDecodedPayload()
        expected.receiptType = .production
        expected.appAppleId = 1_234_567_890
        expected.bundleId = SignedAnswers.bundleId
        expected.applicationVersion = "2.1"
        expected.versionExternalIdentifier = 871_234
        expected.receiptCreationDate = Instant(milliseconds: 1_593_648_000_000)
        expected.originalPurchaseDate = Instant(milliseconds: 1_580_515_200_000)
        expected.originalApplicationVersion = "1.0"
        expected.deviceVerification = "dGVzdA=="
        expected.deviceVerificationNonce = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
        expected.preorderDate = Instant(milliseconds: 1_577_836_800_000)
        expected.appTransactionId = "704289572311"
        expected.originalPlatform = "iOS"
        #expect(app == expected)
    }

    @Test func appTransactionInfo_notFoundInProduction_isAskedInTheSandbox() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        let signed = try Self.appTransaction(receiptType: "Sandbox")
        fake.state.withLock { $0.sandbox.appTransactions["t2"] = signed }
        fake.state.withLock { $0.appleErrors = [(404, 4_040_010)] }
        let app = try SignedAnswers.client(fake).appTransactionInfo(transactionId: "t2", servers: .productionThenSandbox)
        #expect(app.receiptType == .sandbox)
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/transactions/appTransactions/t2", "/sandbox/inApps/v1/transactions/appTransactions/t2"])
    }

    @Test func appTransactionInfo_withoutAppTransaction_isRefused_namingAppleError() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake)
        do {
            _ = try client.appTransactionInfo(transactionId: "t9", servers: .only(.production))
            Issue.record("a missing app transaction was answered")
        } catch {
            #expect(error.appleErrorName == "AppTransactionDoesNotExistError")
            guard case .refused(_, 404, 4_040_019?, _) = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func appTransactionInfo_forgedSignature_isRefused() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        // Another app's payload under the genuine token's signature.
        let genuine = try Self.appTransaction().split(separator: ".")
        let altered = try Self.appTransaction(bundleId: "com.example.other").split(separator: ".")
        let forged = [altered[0], altered[1], genuine[2]].joined(separator: ".")
        fake.state.withLock { $0.production.appTransactions["t2"] = forged }
        let client = try SignedAnswers.client(fake)
        do {
            _ = try client.appTransactionInfo(transactionId: "t2", servers: .only(.production))
            Issue.record("a forged app transaction was accepted")
        } catch {
            guard case .signedDataRefused(_, .signatureRefused(let path, _)) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "$.signedAppTransactionInfo")
        }
    }

    @Test func appTransactionInfo_anotherApp_orAnEnvironmentNotAccepted_isRefused() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.production.appTransactions = ["t1": try! Self.appTransaction(bundleId: "com.example.other"), "t2": try! Self.appTransaction(receiptType: "Sandbox")] }
        #expect(throws: AppStoreError.signedDataRefused(
            endpoint: "GET /inApps/v1/transactions/appTransactions/t1 (Production)",
            reason: .wrongBundleId(path: "$.signedAppTransactionInfo.bundleId", expected: SignedAnswers.bundleId, found: "com.example.other"))
        ) { try SignedAnswers.client(fake).appTransactionInfo(transactionId: "t1", servers: .only(.production)) }
        #expect(throws: AppStoreError.signedDataRefused(
            endpoint: "GET /inApps/v1/transactions/appTransactions/t2 (Production)",
            reason: .environmentNotAccepted(path: "$.signedAppTransactionInfo.receiptType", found: "Sandbox", accepted: ["Production"]))
        ) { try SignedAnswers.client(fake, environments: [.production]).appTransactionInfo(transactionId: "t2", servers: .only(.production)) }
    }

    @Test func appTransactionPayload_memberOfTheWrongType_isRefused_namingItsPath() throws {
        let fake = try AppStoreServerAPIClientTests.fake()
        defer { fake.stop() }
        let signed = try TestChain.sign(#"{"receiptType": "Production", "bundleId": "\#(SignedAnswers.bundleId)", "appAppleId": "1234"}"#)
        fake.state.withLock { $0.production.appTransactions["t2"] = signed }
        let client = try SignedAnswers.client(fake)
        do {
            _ = try client.appTransactionInfo(transactionId: "t2", servers: .only(.production))
            Issue.record("an app Apple ID given as a string was accepted")
        } catch {
            guard case .signedDataRefused(_, .invalidValue(let path, _, _, _)) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "$.signedAppTransactionInfo.appAppleId")
        }
    }
}
