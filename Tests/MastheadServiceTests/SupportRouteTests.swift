import Foundation
import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadTestSupport
import Testing

/// The support routes, with the admin token: `GET /v1/lookup?q=` finds the users a text names
/// exactly, and `GET /v1/users/{userId}/evidence` shows what the user's answers come from.
struct SupportRouteTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let printGrant = #"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-20", "end": "2020-06-17"}"#

    static func lookup(_ harness: ServiceHarness, _ query: String, token: String? = "admin-token") -> ServiceHarness.Answer {
        harness.call("GET", "/v1/lookup" + query, token: token)
    }

    /// Each match as `userId matchedBy environment`.
    static func matches(_ answer: ServiceHarness.Answer) -> [String] {
        answer.json?["matches"]?.elements.map { match in
            [match["userId"]?.string ?? "?", match["matchedBy"]?.string ?? "?", match["environment"]?.string ?? "null"].joined(separator: " ")
        } ?? []
    }

    static func code(_ answer: ServiceHarness.Answer) -> String? { answer.json?["error"]?["code"]?.string }

    /// A receipt for `user` holding one transaction of the subscription `original`.
    static func postReceipt(_ harness: ServiceHarness, _ user: String, _ id: String, original: String) {
        let transaction = ServiceRouterTests.transaction(id, original: original, from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z")
        let answer = harness.call("POST", "/v1/users/\(user)/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(transaction)]}"#)
        #expect(answer.status == 200, "\(answer.body)")
    }

    /// A version 1 notification of the subscription `original`, received at `at`.
    static func postV1(_ harness: ServiceHarness, _ type: String, _ id: String, original: String, at: String) {
        harness.setNow(at)
        let transaction = ServiceRouterTests.transaction(id, original: original, from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z")
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification(type, transactions: [transaction]))
        #expect(answer.status == 200, "\(answer.body)")
    }

    @Test(arguments: StoreBackend.tested) func lookup_findsEachKind_severalSortedByUserThenKind(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        Self.postReceipt(harness, "ana", "1000001", original: "1000001")
        Self.postReceipt(harness, "ana", "1000002", original: "1000001")
        #expect(harness.call("PUT", "/v1/users/bob/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("PUT", "/v1/users/ana/grants/bob", token: "admin-token", json: Self.printGrant).status == 201)

        let byOriginal = Self.lookup(harness, "?q=1000001")
        #expect(byOriginal.status == 200)
        #expect(byOriginal.body == #"{"query":"1000001","matches":[{"userId":"ana","matchedBy":"originalTransactionId","environment":"production"},"#
            + #"{"userId":"ana","matchedBy":"transactionId","environment":"production"}]}"#)
        #expect(Self.matches(Self.lookup(harness, "?q=1000002")) == ["ana transactionId production"])
        #expect(Self.matches(Self.lookup(harness, "?q=ana")) == ["ana userId null"])
        #expect(Self.matches(Self.lookup(harness, "?q=\(Self.token.uppercased())")) == ["bob appAccountToken null"])
        // "bob" is a user id and another user's grant id.
        #expect(Self.matches(Self.lookup(harness, "?q=bob")) == ["ana grantId null", "bob userId null"])
        let none = Self.lookup(harness, "?q=nobody")
        #expect(none.status == 200)
        #expect(none.body == #"{"query":"nobody","matches":[]}"#)
    }

    /// Two Unicode spellings are two ids: the decomposed spelling of a user id finds nobody.
    @Test(arguments: StoreBackend.tested) func lookup_NFCAndNFD_areTwoIds(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/caf%C3%A9/grants/g-1", token: "admin-token", json: Self.printGrant).status == 201)
        #expect(Self.matches(Self.lookup(harness, "?q=caf%C3%A9")) == ["caf\u{E9} userId null"])
        #expect(Self.lookup(harness, "?q=cafe%CC%81").body == "{\"query\":\"cafe\u{301}\",\"matches\":[]}")
    }

    @Test(arguments: ["", "?q=", "?q=" + String(repeating: "x", count: 1025), "?q=a%00b", "?q=a%0Ab", "?other=1"])
    func lookup_badQ_is400InvalidLookup(query: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let answer = Self.lookup(harness, query)
        #expect(answer.status == 400, "\(answer.body)")
        #expect(Self.code(answer) == "invalid_lookup")
        // 1,024 bytes is the longest accepted.
        #expect(Self.lookup(harness, "?q=" + String(repeating: "x", count: 1024)).status == 200)
    }

    @Test func supportRoutes_refuseTheAPIToken403_andNoToken401() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        Self.postReceipt(harness, "ana", "1000001", original: "1000001")
        for target in ["/v1/lookup?q=ana", "/v1/users/ana/evidence"] {
            #expect(harness.call("GET", target, token: "api-token").status == 403, "\(target)")
            #expect(harness.call("GET", target, token: nil).status == 401, "\(target)")
            #expect(harness.call("GET", target, token: "admin-token").status == 200, "\(target)")
        }
    }

    @Test(arguments: StoreBackend.tested) func evidence_showsReceiptsSignedAndV1Notifications_grantsAndTokens(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend) { SignedFixtures.configure(&$0) }
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/alice/app-account-tokens/\(Self.token)").status == 200)
        harness.setNow("2020-07-01T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("PUT", "/v1/users/alice/grants/g-1", token: "admin-token", json: Self.printGrant).status == 201)
        Self.postReceipt(harness, "bob", "3000001", original: "3000001")
        // A signed purchase of another subscription, linked to alice through her app account token.
        harness.setNow("2020-07-02T00:00:00Z")
        let signed = "2020-07-01T12:00:00Z"
        let transaction = try SignedFixtures.transaction("2000001", original: "2000001", from: signed, to: "2020-08-01T12:00:00Z", signed: signed, token: Self.token)
        let renewal = try SignedFixtures.renewal(original: "2000001", autoRenew: true, signed: signed)
        let uuid = "0b6d3f5c-2c4a-4f7e-9a51-8f8b1d2e3c4d"
        let v2 = try SignedFixtures.notification("SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, transaction: transaction, renewal: renewal, signed: signed)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: v2).body == #"{"stored":true,"applied":true}"#)
        Self.postV1(harness, "DID_RENEW", "1000004", original: "1000001", at: "2020-07-03T00:00:00Z")
        Self.postV1(harness, "REFUND", "3000001", original: "3000001", at: "2020-07-04T00:00:00Z")

        let answer = harness.call("GET", "/v1/users/alice/evidence", token: "admin-token")
        #expect(answer.status == 200, "\(answer.body)")
        let evidence = try #require(answer.json)
        #expect(evidence["userId"]?.string == "alice")
        let subscriptions = evidence["subscriptions"]?.elements.map { "\($0["environment"]?.string ?? "") \($0["originalTransactionId"]?.string ?? "")" }
        #expect(subscriptions == ["production 1000001", "production 2000001"])
        #expect(evidence["subscriptions"]?.elements.first { _ in true }?["linkedAt"]?.string == "2020-07-01T00:00:00Z")
        // By subscription, then purchase (1000004, from the version 1 notification, was bought with 1000001) and id.
        let transactions = evidence["transactions"].map { Array($0.elements) } ?? []
        #expect(transactions.map { $0["transactionId"]?.string ?? "" } == ["1000001", "1000004", "1000002", "1000003", "2000001"])
        let fromReceipt = try #require(transactions.first)
        #expect(fromReceipt["signedAt"]?.isNull == true)
        #expect(fromReceipt["purchased"]?.string == "2020-02-20T12:00:00Z")
        #expect(fromReceipt["productId"]?.string == "com.example.monthly")
        #expect(fromReceipt["upgraded"]?.bool == false)
        let fromSignedData = try #require(transactions.last)
        #expect(fromSignedData["signedAt"]?.string == signed)
        #expect(fromSignedData["expires"]?.string == "2020-08-01T12:00:00Z")
        #expect(fromSignedData["revoked"]?.isNull == true)
        let renewals = evidence["renewals"].map { Array($0.elements) } ?? []
        let signedRenewal = try #require(renewals.first { $0["originalTransactionId"]?.string == "2000001" })
        #expect(signedRenewal["evidenceAt"]?.string == signed)
        #expect(signedRenewal["autoRenewOn"]?.bool == true)
        let notifications = evidence["notifications"].map { Array($0.elements) } ?? []
        #expect(notifications.map { $0["type"]?.string ?? "" } == ["DID_RENEW", "SUBSCRIBED"])
        #expect(notifications.map { $0["signed"]?.bool } == [false, true])
        #expect(notifications.map { $0["receivedAt"]?.string } == ["2020-07-03T00:00:00Z", "2020-07-02T00:00:00Z"])
        #expect(notifications.last?["subtype"]?.string == "INITIAL_BUY")
        #expect(notifications.last?["notificationUUID"]?.string == uuid)
        #expect(notifications.last?["environment"]?.string == "production")
        #expect(notifications.last?["originalTransactionIds"]?.elements.map { $0.string } == ["2000001"])
        #expect(notifications.first?["subtype"]?.isNull == true)
        // Grants and tokens as their own routes list them.
        let grants = harness.call("GET", "/v1/users/alice/grants", token: "admin-token").body
        let tokens = harness.call("GET", "/v1/users/alice/app-account-tokens").body
        let prefix = #"{"userId":"alice","#.count
        let listed = "," + String(grants.dropFirst(prefix).dropLast()) + "," + String(tokens.dropFirst(prefix))
        #expect(answer.body.hasSuffix(listed), "\(answer.body)")
        #expect(evidence["grants"]?.elements.map { $0["grantId"]?.string } == ["g-1"])
        #expect(evidence["appAccountTokens"]?.elements.map { $0["appAccountToken"]?.string } == [Self.token])
    }

    @Test(arguments: StoreBackend.tested) func evidence_unknownUser_is404UnknownUser(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let answer = harness.call("GET", "/v1/users/nobody/evidence", token: "admin-token")
        #expect(answer.status == 404)
        #expect(Self.code(answer) == "unknown_user")
        #expect(Self.code(harness.call("GET", "/v1/users/a%00b/evidence", token: "admin-token")) == "invalid_user_id")
    }

    /// At most 200 notifications, the newest, newest first.
    @Test(arguments: StoreBackend.tested) func evidence_notifications_newestFirst_cappedAt200(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        Self.postReceipt(harness, "ana", "1000001", original: "1000001")
        let start = try #require(DateText.rfc3339("2020-07-01T00:00:00Z"))
        for minute in 0..<201 {
            Self.postV1(harness, "DID_RENEW", "1000001", original: "1000001", at: Instant(milliseconds: start.milliseconds + Int64(minute) * 60_000).description)
        }
        let notifications = harness.call("GET", "/v1/users/ana/evidence", token: "admin-token").json?["notifications"].map { Array($0.elements) } ?? []
        #expect(notifications.count == 200)
        #expect(notifications.first?["receivedAt"]?.string == "2020-07-01T03:20:00Z")
        #expect(notifications.last?["receivedAt"]?.string == "2020-07-01T00:01:00Z")
    }
}
