import Foundation
import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// Version 2 notifications taken in end to end: verified with the configured root, stored once
/// per `notificationUUID`, applied under R2.8 to the user their subscription or app account token
/// names; refused ones answered 401, kept for forensics and never applied.
struct SignedNotificationTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let api = ["Authorization": "Bearer api-token"]
    static let instants = [
        "2020-02-21T00:00:00Z", "2020-03-25T00:00:00Z", "2020-04-05T00:00:00Z", "2020-05-15T00:00:00Z", "2020-06-01T00:00:00Z",
        "2020-07-02T00:00:00Z", "2020-07-10T00:00:00Z",
    ]
    static let issues = ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07", "2020-08"]

    static func harness(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> ServiceHarness {
        try ServiceHarness { configuration in
            SignedFixtures.configure(&configuration)
            configure(&configuration)
        }
    }

    /// Every download check's answer body for `user`, by issue and instant, as `get` answers them.
    static func checks(_ user: String, _ get: (String) -> String?) -> [String: String] {
        var answers: [String: String] = [:]
        for at in instants {
            for issue in issues { answers["\(issue) at \(at)"] = get("/v1/users/\(user)/issues/the-monthly/\(issue)?at=\(at)") ?? "no answer" }
        }
        return answers
    }

    /// Records each check whose answers differ (rather than one dictionary comparison, whose failure prints every answer).
    static func expectSame(_ found: [String: String], _ expected: [String: String], _ step: String) {
        #expect(found.keys.sorted() == expected.keys.sorted(), "\(step)")
        for key in expected.keys.sorted() where found[key] != expected[key] {
            Issue.record("\(step): \(key): \(found[key] ?? "none") instead of \(expected[key]!)")
        }
    }

    static func readable(_ answers: [String: String], at: String) -> [String] {
        issues.filter { issue in
            (try? JSONDocument(parsing: Array(answers["\(issue) at \(at)"]!.utf8)).root["readable"]?.bool) == true
        }
    }

    /// Table 6-1 replayed as version 2 notifications over a live server (the subscription linked by
    /// its app account token, no receipt posted) answers every download check at every instant as
    /// the replay of version 1 notifications after a receipt does, row by row; REFUND takes the
    /// refunded renewal away, and REFUND_REVERSED gives it back.
    @Test func table61_replayedAsV2Notifications_answersAsTheV1Replay_rowByRow() throws {
        let v1 = try ServiceHarness()
        defer { v1.close() }
        let v2 = try Self.harness()
        defer { v2.close() }
        let server = try ServiceHTTPTests.serve(v2)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        func postV2(_ body: String) {
            let answer = client.request("POST", "/v1/notifications/app-store", body: Array(body.utf8))
            #expect(answer?.status == 200, "\(answer?.body ?? "no answer")")
            #expect(answer?.body == #"{"stored":true,"applied":true}"#)
        }
        func postV1(_ type: String, _ transactions: [String], pending: String = "[]") {
            #expect(v1.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification(type, transactions: transactions, pending: pending)).status == 200)
        }
        let v1Checks = { Self.checks("alice") { v1.call("GET", $0).body } }
        let v2Checks = { Self.checks("alice") { client.request("GET", $0, headers: Self.api)?.body } }
        func tx(_ id: String, from: String, to: String, signed: String, revoked: String? = nil) throws -> String {
            try SignedFixtures.transaction(id, original: "1000001", from: from, to: to, signed: signed, revoked: revoked, token: Self.token)
        }
        func unsigned(_ id: String, from: String, to: String, cancelled: String? = nil) -> String {
            ServiceRouterTests.transaction(id, original: "1000001", from: from, to: to, cancelled: cancelled)
        }
        let (t1From, t1To) = ("2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z")
        let (t2From, t2To) = ("2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z")
        let (t3From, t3To) = ("2020-06-17T12:00:00Z", "2020-07-17T12:00:00Z")

        // Row 1: the first purchase. The app set its account token, which the publisher linked to the user.
        #expect(v1.call("POST", "/v1/users/alice/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(unsigned("1000001", from: t1From, to: t1To))]}"#).status == 200)
        #expect(client.request("PUT", "/v1/users/alice/app-account-tokens/\(Self.token)", headers: Self.api)?.status == 200)
        postV2(try SignedFixtures.notification(
            "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: try tx("1000001", from: t1From, to: t1To, signed: t1From),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: t1From), signed: t1From))
        Self.expectSame(v2Checks(), v1Checks(), "after the first purchase")

        // Row 2: the renewal.
        postV1("DID_RENEW", [unsigned("1000001", from: t1From, to: t1To), unsigned("1000002", from: t2From, to: t2To)])
        postV2(try SignedFixtures.notification(
            "DID_RENEW", transaction: try tx("1000002", from: t2From, to: t2To, signed: t2From),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: t2From), signed: t2From))
        Self.expectSame(v2Checks(), v1Checks(), "after the renewal")

        // Row 3: automatic renewal turned off, then the subscription expires.
        let off = "2020-04-10T00:00:00Z"
        postV1("DID_CHANGE_RENEWAL_STATUS", [], pending: #"[{"original_transaction_id": "1000001", "product_id": "com.example.monthly", "auto_renew_status": "0"}]"#)
        postV2(try SignedFixtures.notification(
            "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", transaction: try tx("1000002", from: t2From, to: t2To, signed: off),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: false, signed: off), signed: off))
        postV2(try SignedFixtures.notification(
            "EXPIRED", subtype: "VOLUNTARY", transaction: try tx("1000002", from: t2From, to: t2To, signed: t2To),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: false, signed: t2To, expirationIntent: 1), signed: t2To))
        Self.expectSame(v2Checks(), v1Checks(), "after the lapse")

        // Row 4: the reader subscribes again.
        postV1("INTERACTIVE_RENEWAL", [unsigned("1000003", from: t3From, to: t3To)])
        postV2(try SignedFixtures.notification(
            "SUBSCRIBED", subtype: "RESUBSCRIBE", transaction: try tx("1000003", from: t3From, to: t3To, signed: t3From),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: t3From), signed: t3From))
        let beforeRefund = v1Checks()
        Self.expectSame(v2Checks(), beforeRefund, "after resubscribing")
        #expect(Self.readable(beforeRefund, at: "2020-07-02T00:00:00Z") == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])

        // Apple refunds the March renewal: access it gave is lost from the refund on (R5.1).
        let refunded = "2020-03-25T00:00:00Z"
        postV1("REFUND", [unsigned("1000002", from: t2From, to: t2To, cancelled: refunded)])
        postV2(try SignedFixtures.notification(
            "REFUND", transaction: try tx("1000002", from: t2From, to: t2To, signed: "2020-07-05T00:00:00Z", revoked: refunded), signed: "2020-07-05T00:00:00Z"))
        let afterRefund = v2Checks()
        Self.expectSame(afterRefund, v1Checks(), "after the refund")
        #expect(!Self.readable(afterRefund, at: "2020-07-10T00:00:00Z").contains("2020-04"))

        // The refund is reversed: the copy signed last wins (R2.8), and access is as before the refund.
        postV2(try SignedFixtures.notification(
            "REFUND_REVERSED", transaction: try tx("1000002", from: t2From, to: t2To, signed: "2020-07-08T00:00:00Z"), signed: "2020-07-08T00:00:00Z"))
        Self.expectSame(v2Checks(), beforeRefund, "after the refund was reversed")
    }

    /// REFUND and REFUND_REVERSED delivered in the wrong order (Apple's retries may reorder them) come to the same.
    @Test func refundReversed_deliveredBeforeTheRefund_stillRestoresAccess() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ray/app-account-tokens/\(Self.token)").status == 200)
        func tx(signed: String, revoked: String? = nil) throws -> String {
            try SignedFixtures.transaction("r1", original: "r1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z", signed: signed, revoked: revoked, token: Self.token)
        }
        for (type, token) in [("REFUND_REVERSED", try tx(signed: "2020-03-01T00:00:00Z")), ("REFUND", try tx(signed: "2020-02-25T00:00:00Z", revoked: "2020-02-25T00:00:00Z"))] {
            #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification(type, transaction: token, signed: "2020-03-01T00:00:00Z")).status == 200)
        }
        #expect(ServiceRouterTests.readable(harness, "ray", "2020-03", at: "2020-03-05T00:00:00Z") == true)
    }

    /// A prorated refund posted as a signed REFUND notification is stored with its type and share
    /// (R5.3): the reader keeps the issues published before the revocation (a refund without a
    /// type, R5.1, takes them all), the one published after it is denied as `endedByRevocation`,
    /// and the entitlements list the refund with its type and share; a service started again on
    /// the database answers the same.
    @Test(arguments: StoreBackend.tested) func proratedRefundNotification_keepsIssuesPublishedBeforeTheRevocation_R5_3(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend) { SignedFixtures.configure(&$0) }
        #expect(harness.call("PUT", "/v1/users/pia/app-account-tokens/\(Self.token)").status == 200)
        let (from, to, revoked) = ("2020-02-20T12:00:00Z", "2020-04-20T12:00:00Z", "2020-03-10T00:00:00Z")
        let purchase = try SignedFixtures.transaction("pr1", original: "pr1", from: from, to: to, signed: from, token: Self.token)
        let refund = try SignedFixtures.transaction(
            "pr1", original: "pr1", from: from, to: to, signed: revoked, revoked: revoked, revocationType: "REFUND_PRORATED",
            revocationPercentage: 66_000, token: Self.token)
        for (type, transaction, signed) in [("SUBSCRIBED", purchase, from), ("REFUND", refund, revoked)] {
            let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification(type, transaction: transaction, signed: signed))
            #expect(answer.body == #"{"stored":true,"applied":true}"#, "\(type)")
        }
        Self.expectProratedRefund(harness, "pia", "as stored")
        harness.close(remove: false)
        let restarted = try ServiceHarness(backend: backend, path: harness.path) { SignedFixtures.configure(&$0) }
        defer { restarted.close() }
        Self.expectProratedRefund(restarted, "pia", "read back after a restart")
    }

    /// What `user`, whose purchase of Feb 20 – Apr 20, 2020 was refunded prorated (66 %) on Mar 10,
    /// may read, and the refund the entitlements list (R5.3).
    static func expectProratedRefund(_ harness: ServiceHarness, _ user: String, _ step: String) {
        for (issue, readable) in [("2020-02", true), ("2020-03", true), ("2020-04", false)] {
            #expect(ServiceRouterTests.readable(harness, user, issue, at: "2020-07-02T00:00:00Z") == readable, "\(step): \(issue)")
        }
        let denial = harness.call("GET", "/v1/users/\(user)/issues/the-monthly/2020-04?at=2020-07-02T00:00:00Z").json?["reason"]
        #expect(denial?["kind"]?.string == "endedByRevocation", "\(step)")
        #expect(denial?["revocationType"]?.string == "REFUND_PRORATED", "\(step)")
        let entitlements = harness.call("GET", "/v1/users/\(user)/entitlements?at=2020-07-02T00:00:00Z&publication=the-monthly").json
        let refunds = entitlements?["publications"]?.elements.first(where: { _ in true })?["refunded"]?.elements.map { $0 } ?? []
        #expect(refunds.count == 1, "\(step)")
        #expect(refunds.first?["transactionId"]?.string == "pr1", "\(step)")
        #expect(refunds.first?["revocationType"]?.string == "REFUND_PRORATED", "\(step)")
        #expect(refunds.first?["revocationPercentage"]?.int64 == 66_000, "\(step)")
    }

    /// Each refused notification: 401 `notification_refused` naming the path and reason, its body
    /// kept in the rejected notifications, nothing stored or applied.
    @Test(arguments: [
        "flipped signature", "flipped inner signature", "wrong bundle id", "sandbox not accepted", "not a token", "other root",
        "malformed token",
    ])
    func refusedNotification_is401_keptAsRejected_andNothingApplied(refusal: String) throws {
        let harness = try Self.harness { configuration in
            if refusal == "sandbox not accepted" { configuration.appStoreEnvironments = ["Production"] }
            if refusal == "other root" { configuration.appStoreRootCertificates = [TestChain.directory.appendingPathComponent("other-root.der").path] }
        }
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/tia/app-account-tokens/\(Self.token)").status == 200)
        let signed = "2020-02-20T12:00:00Z"
        let good = try SignedFixtures.transaction("x1", original: "x1", from: signed, to: "2020-03-20T12:00:00Z", signed: signed, token: Self.token)
        let body: String
        let expected: String
        switch refusal {
        case "flipped signature":
            body = SignedFixtures.body(SignedFixtures.tampered(try SignedFixtures.payload("SUBSCRIBED", transaction: good, signed: signed)))
            expected = "$.signedPayload"
        case "flipped inner signature":
            body = try SignedFixtures.notification("SUBSCRIBED", transaction: SignedFixtures.tampered(good), signed: signed)
            expected = "$.signedPayload.data.signedTransactionInfo"
        case "wrong bundle id":
            body = try SignedFixtures.notification("SUBSCRIBED", transaction: good, signed: signed, bundleId: "com.example.other")
            expected = "$.signedPayload.data.bundleId"
        case "sandbox not accepted":
            let sandbox = try SignedFixtures.transaction("x1", original: "x1", from: signed, to: "2020-03-20T12:00:00Z", signed: signed, token: Self.token, environment: "Sandbox")
            body = try SignedFixtures.notification("SUBSCRIBED", transaction: sandbox, signed: signed, environment: "Sandbox")
            expected = "$.signedPayload.data.environment"
        case "not a token":
            body = #"{"signedPayload": 42}"#
            expected = "$.signedPayload"
        case "malformed token":
            body = #"{"signedPayload": "e30.e30"}"#
            expected = "$.signedPayload"
        default:
            body = try SignedFixtures.notification("SUBSCRIBED", transaction: good, signed: signed)
            expected = "$.signedPayload"
        }
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
        #expect(answer.status == 401)
        #expect(answer.json?["error"]?["code"]?.string == "notification_refused")
        let message = answer.json?["error"]?["message"]?.string ?? ""
        #expect(message.contains(expected), "\(message)")
        let rejected = harness.call("GET", "/v1/notifications/rejected?bodies=true", token: "admin-token").json?["rejectedNotifications"]
        #expect(rejected?.count == 1)
        #expect(rejected?.elements.first(where: { _ in true })?["reason"]?.string == message)
        // Only a body that is no signed token at all is kept as malformed, apart from signed data refused.
        #expect(rejected?.elements.first(where: { _ in true })?["kind"]?.string == (["not a token", "malformed token"].contains(refusal) ? "malformed" : "signed"))
        #expect(rejected?.elements.first(where: { _ in true })?["bodyBase64"]?.string == Data(body.utf8).base64EncodedString())
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.notificationCount() == 0)
        #expect(try store.database.scalar("SELECT count(*) FROM transactions") == .integer(0))
        #expect(ServiceRouterTests.readable(harness, "tia", "2020-03", at: "2020-03-05T00:00:00Z") == false)
    }

    /// A notification whose payload has no `signedDate` has its certificates judged at the
    /// service's clock, not the system's (the test chain is valid 2016–2045): a service whose clock
    /// reads 2020 takes it in; one whose clock reads 2050 (expired) or 2010 (not yet valid)
    /// refuses it, 401, naming the instant it was judged at.
    @Test(arguments: [("2020-07-02T00:00:00Z", ""), ("2050-01-01T00:00:00Z", "expired at"), ("2010-01-01T00:00:00Z", "is valid only from")])
    func undatedNotification_certificatesJudgedAtTheServiceClock(now: String, refusal: String) throws {
        let harness = try ServiceHarness(now: now) { SignedFixtures.configure(&$0) }
        defer { harness.close() }
        let payload = try TestChain.sign(
            #"{"notificationType": "TEST", "notificationUUID": "6f1d2c3b-4a5e-4f60-8172-93a4b5c6d7e8", "version": "2.0", "data": {"bundleId": "\#(SignedFixtures.bundleId)", "appAppleId": \#(SignedFixtures.appAppleId), "bundleVersion": "1.0", "environment": "Production"}}"#
        )
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: SignedFixtures.body(payload))
        if refusal.isEmpty {
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.body == #"{"stored":true,"applied":true}"#)
        } else {
            #expect(answer.status == 401)
            let message = answer.json?["error"]?["message"]?.string ?? ""
            #expect(message.contains(refusal) && message.contains("judged at \(now)"), "\(message)")
        }
    }

    /// A second delivery of a `notificationUUID` is answered 200 `duplicate`, `stored: false`, and
    /// is neither stored nor counted again; a later notification about the same transaction still applies.
    @Test func duplicateUUID_isStoredAndAppliedOnce() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/dan/app-account-tokens/\(Self.token)").status == 200)
        let from = "2020-02-20T12:00:00Z"
        let refund = try SignedFixtures.notification(
            "REFUND", uuid: "11111111-2222-4333-8444-555555555555",
            transaction: try SignedFixtures.transaction("d1", original: "d1", from: from, to: "2020-03-20T12:00:00Z", signed: "2020-02-25T00:00:00Z", revoked: "2020-02-25T00:00:00Z", token: Self.token),
            signed: "2020-02-25T00:00:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: refund).body == #"{"stored":true,"applied":true}"#)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: refund).body == #"{"stored":false,"applied":false,"duplicate":true}"#)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.notificationCount() == 1)
        #expect(try store.database.scalar("SELECT notification_type || '/' || coalesce(subtype, '-') || '/' || notification_uuid FROM notifications") == .text("REFUND/-/11111111-2222-4333-8444-555555555555"))
        #expect(harness.call("GET", "/metrics").body.contains(#"masthead_notifications_total{type="REFUND"} 1"#))
        #expect(ServiceRouterTests.readable(harness, "dan", "2020-03", at: "2020-03-05T00:00:00Z") == false)
    }

    /// TEST and a type Apple adds later are stored and answered 200; what they carry is applied.
    @Test(arguments: ["TEST", "SOMETHING_APPLE_ADDS_LATER"])
    func testAndUnknownTypes_areStored_200(type: String) throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let body = try SignedFixtures.notification(type, subtype: type == "TEST" ? nil : "NEW_SUBTYPE", signed: "2020-02-20T12:00:00Z")
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
        #expect(answer.status == 200)
        #expect(answer.body == #"{"stored":true,"applied":true}"#)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.database.scalar("SELECT notification_type || '/' || coalesce(subtype, '-') FROM notifications") == .text(type + (type == "TEST" ? "/-" : "/NEW_SUBTYPE")))
        #expect(try store.database.scalar("SELECT body FROM notifications") == .text(body))
    }

    /// A subscription whose token nobody owns yet is stored unlinked; linking the token later links
    /// it; a receipt-linked subscription stays with its user whatever token its transactions carry.
    @Test func tokenLinkedAfterTheNotification_picksTheSubscriptionUp() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let from = "2020-02-20T12:00:00Z"
        let purchase = try SignedFixtures.transaction("p1", original: "p1", from: from, to: "2020-03-20T12:00:00Z", signed: from, token: Self.token)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification("SUBSCRIBED", subtype: "INITIAL_BUY", transaction: purchase, signed: from)).status == 200)
        #expect(ServiceRouterTests.readable(harness, "eve", "2020-03", at: "2020-03-05T00:00:00Z") == false)
        #expect(harness.call("PUT", "/v1/users/eve/app-account-tokens/\(Self.token.uppercased())").status == 200)
        #expect(ServiceRouterTests.readable(harness, "eve", "2020-03", at: "2020-03-05T00:00:00Z") == true)
        // Table 6-1's subscription, linked by a receipt to fay, stays hers though its renewal carries eve's token.
        #expect(harness.call("POST", "/v1/users/fay/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let renewal = try SignedFixtures.transaction("1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z", signed: "2020-07-17T11:58:00Z", token: Self.token)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification("DID_RENEW", transaction: renewal, signed: "2020-07-17T11:58:00Z")).status == 200)
        #expect(ServiceRouterTests.readable(harness, "fay", "2020-08", at: "2020-08-05T00:00:00Z") == true)
        #expect(ServiceRouterTests.readable(harness, "eve", "2020-08", at: "2020-08-05T00:00:00Z") == false)
    }

    /// Without `appStoreBundleId`, signed data is refused (503, so Apple sends it again once the
    /// app is configured), the notification kept as rejected with the reason, nothing applied.
    @Test func unconfiguredBundleId_refusesSignedData() throws {
        let harness = try ServiceHarness { configuration in
            configuration.appStoreRootCertificates = [TestChain.directory.appendingPathComponent("root.der").path]
        }
        defer { harness.close() }
        let from = "2020-02-20T12:00:00Z"
        let purchase = try SignedFixtures.transaction("u1", original: "u1", from: from, to: "2020-03-20T12:00:00Z", signed: from)
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification("SUBSCRIBED", transaction: purchase, signed: from))
        #expect(answer.status == 503)
        #expect(answer.json?["error"]?["code"]?.string == "signed_data_not_configured")
        let rejected = harness.call("GET", "/v1/notifications/rejected", token: "admin-token").json?["rejectedNotifications"]
        #expect(rejected?.elements.first(where: { _ in true })?["reason"]?.string?.contains("appStoreBundleId") == true)
        // Apple's own is kept as signed data, junk as malformed, each within its own bound.
        #expect(rejected?.elements.first(where: { _ in true })?["kind"]?.string == "signed")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: #"{"signedPayload": "junk"}"#).status == 503)
        let junk = harness.call("GET", "/v1/notifications/rejected?limit=1", token: "admin-token").json?["rejectedNotifications"]
        #expect(junk?.elements.first(where: { _ in true })?["kind"]?.string == "malformed")
        let posted = harness.call("POST", "/v1/users/ula/transactions", json: SignedFixtures.transactions([purchase]))
        #expect(posted.status == 503)
        #expect(posted.json?["error"]?["code"]?.string == "signed_data_not_configured")
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.notificationCount() == 0)
        #expect(try store.database.scalar("SELECT count(*) FROM transactions") == .integer(0))
        // Version 1 notifications are taken in as before.
        let v1 = ServiceRouterTests.notification("DID_RENEW", transactions: [ServiceRouterTests.transaction("v2", original: "v1", from: from, to: "2020-03-20T12:00:00Z")])
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: v1).status == 200)
    }
}
