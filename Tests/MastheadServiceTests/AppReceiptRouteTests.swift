import Foundation
import Masthead
import MastheadJSON
@testable import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// `POST /v1/users/{userId}/app-receipts`: the public app receipts of `Tests/Fixtures/app-receipts`
/// read for a transaction id, whose customer the App Store Server API (the fake) knows, then
/// restored as `POST /v1/users/{userId}/restore` does.
struct AppReceiptRouteTests {
    /// The body an app sends: `{"appReceipt": "<base64>"}`.
    static func body(_ base64: String) -> String { #"{"appReceipt": "\#(base64)"}"# }

    /// The body holding the public receipt `name`.
    static func body(receipt name: String) throws -> String { body(try AppReceiptFixtures.base64(name)) }

    /// A fake whose production server knows Table 6-1's customer by the receipt's transaction id
    /// `receiptTransactionId` too.
    static func fake(knowing receiptTransactionId: String) throws -> FakeAppStoreServerAPI {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        let history = try RestoreTests.table61()
        fake.state.withLock { state in
            state.production.customers = [
                FakeAppStoreServerAPI.Customer(transactionIds: [receiptTransactionId, "1000001", "1000002", "1000003"], history: history)
            ]
        }
        return fake
    }

    /// Over HTTP: each public receipt with purchases asks Apple with the id `ReceiptUtility`
    /// answers (Xcode's `0`; the sandbox receipt's original transaction id), links the customer's
    /// history, answers the entitlements, and every download check answers Table 6-1.
    @Test(arguments: [(AppReceiptFixtures.withTransaction, "0"), (AppReceiptFixtures.sandbox, "1000000692878476")])
    func appReceipt_restoresTheCustomerOfItsTransactionId_andTheChecksAnswer(_ receipt: String, _ transactionId: String) throws {
        let fake = try Self.fake(knowing: transactionId)
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake)
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        let answer = client.request("POST", "/v1/users/ivy/app-receipts", headers: RestoreTests.api, body: Array(try Self.body(receipt: receipt).utf8))
        #expect(answer?.status == 200, "\(answer?.body ?? "no answer")")
        #expect(answer?.body.contains(#""user_id":"ivy""#) == true)
        #expect(fake.seen.first?.target == "/production/inApps/v2/history/\(transactionId)?sort=ASCENDING")
        #expect(fake.seen.allSatisfy { $0.refusal == nil })
        RestoreTests.expectTable61("ivy") { client.request("GET", $0, headers: RestoreTests.api)?.body }
    }

    /// A receipt without in-app purchases is 422 `app_receipt_without_purchases`: Apple is not
    /// asked and nothing is stored.
    @Test func appReceipt_withoutPurchases_answers422_asksNothing_andStoresNothing() throws {
        let fake = try Self.fake(knowing: "0")
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/app-receipts", json: try Self.body(receipt: AppReceiptFixtures.empty))
        #expect(answer.status == 422, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "app_receipt_without_purchases")
        #expect(fake.seen.isEmpty)
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").json?["error"]?["code"]?.string == "unknown_user")
    }

    /// A body that is not an app receipt is 400, its message naming what is wrong: the member,
    /// the base64 (and its offset), the PKCS #7 or the ASN.1; Apple is not asked.
    @Test(arguments: [
        ("missing", #"{"receipt": "MIIT"}"#, "invalid_app_receipt", "$.receipt: unknown member"),
        ("empty object", #"{}"#, "invalid_app_receipt", "$.appReceipt is missing"),
        ("number", #"{"appReceipt": 12}"#, "invalid_app_receipt", "$.appReceipt must be a string of base64"),
        ("not base64", #"{"appReceipt": "MII T"}"#, "invalid_app_receipt", "$.appReceipt: the app receipt is not base64: ' ' at offset 3"),
        ("not PKCS #7", #"{"appReceipt": "aGVsbG8="}"#, "invalid_app_receipt", "$.appReceipt: the app receipt is not PKCS #7 signed data: "),
        ("an array", #"[]"#, "invalid_app_receipt", "$: expected an object"),
        ("not JSON", #"{"appReceipt": "#, "invalid_json", "unexpected end of input"),
    ])
    func appReceipt_garbage_answers400_namingWhatIsWrong(_ what: String, _ body: String, _ code: String, _ message: String) throws {
        let fake = try Self.fake(knowing: "0")
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/app-receipts", json: body)
        #expect(answer.status == 400, "\(what): \(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == code, "\(what): \(answer.body)")
        #expect(answer.json?["error"]?["message"]?.string?.contains(message) == true, "\(what): \(answer.body)")
        #expect(fake.seen.isEmpty)
    }

    /// Its ASN.1 broken past the envelope (a transaction id of letters), the receipt is 400
    /// `invalid_app_receipt` naming the offset.
    @Test func appReceipt_withATransactionIdOfLetters_answers400_namingItsOffset() throws {
        let content = AppReceiptTestDER.receipt(transactionId: "abc")
        let base64 = Data(AppReceiptTestDER.signedData(content)).base64EncodedString()
        let harness = try RestoreTests.harness(nil)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/app-receipts", json: Self.body(base64))
        #expect(answer.status == 400, "\(answer.body)")
        #expect(answer.json?["error"]?["message"]?.string == #"$.appReceipt: the app receipt's transaction id at offset 25 is "abc", not 1 to 64 digits"#)
    }

    /// The restore's own answers hold: no App Store Server API key is 503
    /// `app_store_server_api_not_configured`; an id Apple does not know is 404 `transaction_not_found`.
    @Test func appReceipt_answersTheRestoresErrors() throws {
        let unconfigured = try RestoreTests.harness(nil)
        defer { unconfigured.close() }
        let answer = unconfigured.call("POST", "/v1/users/ivy/app-receipts", json: try Self.body(receipt: AppReceiptFixtures.withTransaction))
        #expect(answer.status == 503, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "app_store_server_api_not_configured")
        let fake = try Self.fake(knowing: "1000000692878476")
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake)
        defer { harness.close() }
        let unknown = harness.call("POST", "/v1/users/ivy/app-receipts", json: try Self.body(receipt: AppReceiptFixtures.withTransaction))
        #expect(unknown.status == 404, "\(unknown.body)")
        #expect(unknown.json?["error"]?["code"]?.string == "transaction_not_found")
    }

    /// The route needs the API token: without it, or with another, 401 and Apple is not asked.
    @Test(arguments: [nil, "wrong-token"] as [String?])
    func appReceipt_withoutTheAPIToken_answers401(_ token: String?) throws {
        let fake = try Self.fake(knowing: "0")
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/app-receipts", token: token, json: try Self.body(receipt: AppReceiptFixtures.withTransaction))
        #expect(answer.status == 401, "\(answer.body)")
        #expect(fake.seen.isEmpty)
    }
}

/// A receipt's DER written by hand, for receipts no public fixture breaks the way a test needs.
enum AppReceiptTestDER {
    /// A DER element with a definite length (contents under 128 bytes here).
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }

    /// A receipt whose one in-app purchase has `transactionId`: the SET starts at offset 0, the
    /// transaction id's UTF8String at offset 25.
    static func receipt(transactionId: String) -> [UInt8] {
        let id = tlv(0x30, tlv(0x02, [0x06, 0xA7]) + tlv(0x02, [1]) + tlv(0x04, tlv(0x0C, Array(transactionId.utf8))))
        let purchase = tlv(0x30, tlv(0x02, [17]) + tlv(0x02, [1]) + tlv(0x04, tlv(0x31, id)))
        return tlv(0x31, purchase)
    }

    /// Minimal PKCS #7 signed data around `content`: version 1, no digest algorithms, no signer.
    static func signedData(_ content: [UInt8]) -> [UInt8] {
        let contentInfo = tlv(0x30, tlv(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]) + tlv(0xA0, tlv(0x04, content)))
        let signed = tlv(0x30, tlv(0x02, [1]) + tlv(0x31, []) + contentInfo + tlv(0x31, []))
        return tlv(0x30, tlv(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]) + tlv(0xA0, signed))
    }
}
