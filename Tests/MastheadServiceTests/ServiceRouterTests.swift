import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadService
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// Every endpoint, in process, on a fresh database each.
struct ServiceRouterTests {
    static func notification(_ type: String, password: String = "shared-secret", environment: String = "PROD", transactions: [String], pending: String = "[]") -> String {
        #"{"notification_type": "\#(type)", "password": "\#(password)", "environment": "\#(environment)", "unified_receipt": {"status": 0, "environment": "\#(environment == "PROD" ? "Production" : "Sandbox")", "latest_receipt": "BASE64-\#(type)", "latest_receipt_info": [\#(transactions.joined(separator: ","))], "pending_renewal_info": \#(pending)}}"#
    }

    static func transaction(_ id: String, original: String, product: String = "com.example.monthly", from: String, to: String, cancelled: String? = nil) -> String {
        let cancellation = cancelled.map { #", "cancellation_date_ms": "\#(DateText.rfc3339($0)!.milliseconds)""# } ?? ""
        return #"{"transaction_id": "\#(id)", "original_transaction_id": "\#(original)", "product_id": "\#(product)", "purchase_date_ms": "\#(DateText.rfc3339(from)!.milliseconds)", "expires_date_ms": "\#(DateText.rfc3339(to)!.milliseconds)"\#(cancellation)}"#
    }

    static func readable(_ harness: ServiceHarness, _ user: String, _ issue: String, at: String) -> Bool? {
        harness.call("GET", "/v1/users/\(user)/issues/the-monthly/\(issue)?at=\(at)").json?["readable"]?.bool
    }

    @Test func health_needsNoToken_othersDo() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/health", token: nil).body == #"{"status":"ok"}"#)
        for target in ["/metrics", "/v1/users/u/entitlements", "/v1/users/u/issues/the-monthly/2020-01", "/v1/publications/the-monthly/issues", "/v1/refresh-due"] {
            let answer = harness.call("GET", target, token: nil)
            #expect(answer.status == 401, "\(target)")
            #expect(answer.json?["error"]?["code"]?.string == "unauthorized")
            #expect(harness.call("GET", target, token: "wrong").status == 401)
        }
        #expect(harness.call("GET", "/v1/nowhere").status == 404)
        #expect(harness.call("DELETE", "/v1/users/u/entitlements").status == 405)
    }

    @Test(arguments: StoreBackend.tested) func receipt_thenEntitlements_andDownloadCheck_table61(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let posted = harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(posted.status == 200)
        #expect(posted.json?["publications"]?.elements.first(where: { _ in true })?["readable"]?.count == 5)
        let entitlements = harness.call("GET", "/v1/users/alice/entitlements?at=2020-05-15T00:00:00Z&publication=the-monthly")
        #expect(entitlements.json?["publications"]?.elements.first(where: { _ in true })?["readable"]?.elements.map { $0.string! } == ["2020-02", "2020-03", "2020-04"])
        for (issue, readable) in [("2020-01", false), ("2020-02", true), ("2020-05", false), ("2020-06", true), ("2020-07", true), ("2020-08", false)] {
            #expect(Self.readable(harness, "alice", issue, at: "2020-07-02T00:00:00Z") == readable, "\(issue)")
        }
        let check = harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z").json
        #expect(check?["reason"]?["kind"]?.string == "unlockedAtPeriodStart")
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/1999-01").status == 404)
        #expect(harness.call("GET", "/v1/users/alice/issues/the-daily/2020-01").status == 404)
        #expect(harness.call("GET", "/v1/users/alice/entitlements?at=yesterday").status == 400)
        #expect(harness.call("GET", "/v1/users/nobody/entitlements").status == 404)
        // The download check for an unknown user answers "not readable", not an error.
        #expect(Self.readable(harness, "nobody", "2020-02", at: "2020-07-02T00:00:00Z") == false)
    }

    /// The download check reuses a body while the instant stays in its answer's stable range;
    /// at every instant, in any order, the body equals one written afresh from the engine.
    @Test(arguments: ["table-6-1", "table-6-2", "refund", "upgrade", "grace", "stacked-passes", "single-issue"])
    func downloadCheck_reusedBodies_equalFreshAnswers(receipt: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let bytes = try ServiceHarness.example(receipt)
        #expect(harness.call("POST", "/v1/users/u/receipts", body: bytes).status == 200)
        let catalog = harness.service.catalog
        let history = try ReceiptDecoder(catalog: catalog).decode(bytes).history
        let engine = EntitlementEngine(catalog: catalog)
        let publication = try #require(catalog.publication("the-monthly"))
        let start = DateText.rfc3339("2020-01-15T00:00:00Z")!
        var instants = (0..<440).map { start.adding(milliseconds: Int64($0) * 13 * 3_600_000) }
        // Boundaries too: each issue's publish instant, a millisecond either side.
        for issue in publication.issues { instants += [-1, 0, 1].map { issue.published.adding(milliseconds: $0) } }
        var random = SeededGenerator(seed: 11)
        instants.shuffle(using: &random)
        for at in instants {
            let fresh = engine.evaluate(history, publication: publication, at: at)
            for issue in ["2020-02", "2020-05", "2020-06", "2020-12"] {
                let answer = harness.call("GET", "/v1/users/u/issues/the-monthly/\(issue)?at=\(at)")
                var writer = JSONWriter()
                let index = try #require(publication.index(ofIssue: issue))
                EntitlementJSON.writeCheck(publication.issues[index], try #require(fresh.access(toIssue: issue)), fresh, userId: "u", into: &writer)
                #expect(answer.body == writer.text, "\(issue) at \(at)")
            }
        }
    }

    @Test func badReceipts_areRefused_withNothingStored() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/u/receipts", json: "{nope").json?["error"]?["code"]?.string == "invalid_json")
        let rejected = harness.call("POST", "/v1/users/u/receipts", json: #"{"status": 21007}"#)
        #expect(rejected.status == 422)
        #expect(rejected.body.contains("environment mismatch"))
        let invalid = harness.call("POST", "/v1/users/u/receipts", json: #"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "purchase_date_ms": "soon"}]}"#)
        #expect(invalid.status == 400)
        #expect(invalid.body.contains("$.latest_receipt_info[0].purchase_date_ms"))
        #expect(harness.call("GET", "/v1/users/u/entitlements").status == 404)
    }

    @Test(arguments: StoreBackend.tested) func table61_replayedAsReceiptAndNotifications(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let first = Self.transaction("t1", original: "t1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z")
        #expect(harness.call("POST", "/v1/users/alice/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(first)], "latest_receipt": "R1"}"#).status == 200)
        #expect(Self.readable(harness, "alice", "2020-04", at: "2020-04-05T00:00:00Z") == false)
        let renewal = Self.transaction("t2", original: "t1", from: "2020-03-20T11:58:00Z", to: "2020-04-20T12:00:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("DID_RENEW", transactions: [first, renewal])).status == 200)
        #expect(Self.readable(harness, "alice", "2020-04", at: "2020-04-05T00:00:00Z") == true)
        let off = #"[{"original_transaction_id": "t1", "product_id": "com.example.monthly", "auto_renew_status": "0"}]"#
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("DID_CHANGE_RENEWAL_STATUS", transactions: [], pending: off)).status == 200)
        #expect(Self.readable(harness, "alice", "2020-05", at: "2020-06-01T00:00:00Z") == false)
        let again = Self.transaction("t3", original: "t1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("INTERACTIVE_RENEWAL", transactions: [again])).status == 200)
        let status = harness.call("GET", "/v1/users/alice/entitlements?at=2020-07-02T00:00:00Z").json?["publications"]?.elements.first(where: { _ in true })
        #expect(status?["readable"]?.elements.map { $0.string! } == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])
        #expect(status?["status"]?["state"]?.string == "active")
        // A refund of the renewal takes March's renewal away from then on (R5.1).
        let refunded = Self.transaction("t2", original: "t1", from: "2020-03-20T11:58:00Z", to: "2020-04-20T12:00:00Z", cancelled: "2020-03-25T00:00:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("REFUND", transactions: [refunded])).status == 200)
        #expect(Self.readable(harness, "alice", "2020-04", at: "2020-07-02T00:00:00Z") == false)
        #expect(Self.readable(harness, "alice", "2020-03", at: "2020-03-24T00:00:00Z") == true)
    }

    @Test func table62_replayedAsReceiptAndNotifications_streaming() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        func tx(_ id: String, _ from: String, _ to: String) -> String {
            Self.transaction(id, original: "s1", product: "com.example.reader", from: from, to: to)
        }
        let s1 = tx("s1", "2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z")
        #expect(harness.call("POST", "/v1/users/sam/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(s1)]}"#).status == 200)
        let notify = { (type: String, transactions: [String], pending: String) in
            #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification(type, transactions: transactions, pending: pending)).status == 200)
        }
        notify("DID_RENEW", [tx("s2", "2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z")], "[]")
        notify("DID_FAIL_TO_RENEW", [], #"[{"original_transaction_id": "s1", "product_id": "com.example.reader", "is_in_billing_retry_period": "1", "expiration_intent": "2"}]"#)
        let retrying = harness.call("GET", "/v1/users/sam/entitlements?at=2020-04-25T00:00:00Z").json?["publications"]?.elements.first(where: { _ in true })
        #expect(retrying?["status"]?["state"]?.string == "billingRetry")
        #expect(retrying?["readable"]?.count == 0)
        notify("DID_RECOVER", [tx("s3", "2020-05-05T12:00:00Z", "2020-06-05T12:00:00Z")],
               #"[{"original_transaction_id": "s1", "product_id": "com.example.reader", "is_in_billing_retry_period": "0", "auto_renew_status": "1"}]"#)
        notify("DID_RENEW", [tx("s4", "2020-06-05T11:58:00Z", "2020-07-05T12:00:00Z")], "[]")
        for (at, issue, readable) in [("2020-04-19T12:00:00Z", "2020-04", true), ("2020-04-20T12:00:00Z", "2020-04", false),
                                      ("2020-05-05T12:00:00Z", "2020-05", true), ("2020-06-05T12:00:00Z", "2020-01", true),
                                      ("2020-07-01T12:00:00Z", "2020-01", false), ("2020-07-01T12:00:00Z", "2020-07", true)] {
            #expect(Self.readable(harness, "sam", issue, at: at) == readable, "\(issue) at \(at)")
        }
    }

    @Test(arguments: StoreBackend.tested) func notificationBeforeReceipt_isKept_andAppliedWhenLinked(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let renewal = Self.transaction("n2", original: "n1", from: "2020-03-20T12:00:00Z", to: "2020-04-20T12:00:00Z")
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("DID_RENEW", transactions: [renewal]))
        #expect(answer.status == 200)
        #expect(answer.json?["stored"]?.bool == true)
        let first = Self.transaction("n1", original: "n1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z")
        #expect(harness.call("POST", "/v1/users/bob/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(first)]}"#).status == 200)
        #expect(Self.readable(harness, "bob", "2020-04", at: "2020-05-01T00:00:00Z") == true)
        let due = harness.call("GET", "/v1/refresh-due?within=3d")
        #expect(due.status == 200)
    }

    @Test(arguments: StoreBackend.tested) func duplicateDelivery_changesNothing(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/carol/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let renewal = Self.transaction("1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z")
        let body = Self.notification("DID_RENEW", transactions: [renewal])
        let before = harness.call("GET", "/v1/users/carol/entitlements?at=2020-09-01T00:00:00Z").body
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: body).status == 200)
        let once = harness.call("GET", "/v1/users/carol/entitlements?at=2020-09-01T00:00:00Z").body
        #expect(once != before)
        for _ in 0..<3 { #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: body).status == 200) }
        #expect(harness.call("GET", "/v1/users/carol/entitlements?at=2020-09-01T00:00:00Z").body == once)
    }

    /// Apple retries and reorders deliveries: a DID_CHANGE_RENEWAL_STATUS turning auto-renew off
    /// arrives before the older one turning it on, which is then delivered again. The newest
    /// change stands, and an as-of question before it sees the older state (R2.7).
    @Test(arguments: StoreBackend.tested) func renewalStatusNotifications_outOfOrderAndReplayed_newestChangeStands(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let first = Self.transaction("r1", original: "r1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z")
        #expect(harness.call("POST", "/v1/users/rita/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(first)]}"#).status == 200)
        func change(_ on: Bool, at changed: String) -> String {
            let flag = on ? "true" : "false"
            let milliseconds = DateText.rfc3339(changed)!.milliseconds
            let pending = #"[{"original_transaction_id": "r1", "product_id": "com.example.monthly", "auto_renew_status": "\#(on ? 1 : 0)"}]"#
            return #"{"notification_type": "DID_CHANGE_RENEWAL_STATUS", "password": "shared-secret", "environment": "PROD", "auto_renew_status": "\#(flag)", "auto_renew_status_change_date_ms": "\#(milliseconds)", "auto_renew_product_id": "com.example.monthly", "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt_info": [\#(first)], "pending_renewal_info": \#(pending)}}"#
        }
        let on = change(true, at: "2020-03-01T00:00:00Z")
        let off = change(false, at: "2020-03-05T00:00:00Z")
        for body in [off, on, on] {
            #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: body).json?["applied"]?.bool == true)
        }
        func autoRenew(at: String) -> Bool? {
            harness.call("GET", "/v1/users/rita/entitlements?at=\(at)").json?["publications"]?.elements.first(where: { _ in true })?["status"]?["autoRenew"]?.bool
        }
        #expect(autoRenew(at: "2020-03-10T00:00:00Z") == false)
        #expect(autoRenew(at: "2020-03-03T00:00:00Z") == true)
    }

    @Test func wrongPassword_is401_andNothingIsStored() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let renewal = Self.transaction("w2", original: "w1", from: "2020-03-20T12:00:00Z", to: "2020-04-20T12:00:00Z")
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification("DID_RENEW", password: "guess", transactions: [renewal]))
        #expect(answer.status == 401)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: #"{"notification_type": "DID_RENEW"}"#).status == 401)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: "not json").status == 400)
        #expect(!harness.call("GET", "/metrics").body.contains("masthead_notifications_total{"))
        #expect(harness.call("GET", "/v1/refresh-due?within=1000d").json?["subscriptions"]?.count == 0)
    }

    @Test(arguments: ["INITIAL_BUY", "CANCEL", "RENEWAL", "INTERACTIVE_RENEWAL", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS",
                      "DID_FAIL_TO_RENEW", "DID_RECOVER", "DID_RENEW", "PRICE_INCREASE_CONSENT", "REFUND", "REVOKE", "CONSUMPTION_REQUEST", "SOMETHING_NEW"])
    func everyNotificationType_isStoredAndCounted(type: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let cancelled = ["CANCEL", "REFUND", "REVOKE"].contains(type) ? "2020-03-01T00:00:00Z" : nil
        let transaction = Self.transaction("x1", original: "x1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z", cancelled: cancelled)
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification(type, transactions: [transaction]))
        #expect(answer.status == 200)
        #expect(answer.json?["applied"]?.bool == true)
        // A type Apple does not document is counted as other: the sender's text adds no series.
        let label = type == "SOMETHING_NEW" ? "other" : type
        #expect(harness.call("GET", "/metrics").body.contains(#"masthead_notifications_total{type="\#(label)"} 1"#))
        #expect(harness.call("POST", "/v1/users/dan/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(Self.transaction("x1", original: "x1", from: "2020-02-20T12:00:00Z", to: "2020-03-20T12:00:00Z"))]}"#).status == 200)
        #expect(Self.readable(harness, "dan", "2020-02", at: "2020-03-05T00:00:00Z") == (cancelled == nil))
    }

    @Test func unreadableNotification_isKeptRaw_andAcknowledged() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let body = #"{"notification_type": "DID_RENEW", "password": "shared-secret", "unified_receipt": {"latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "purchase_date_ms": "garbage"}]}}"#
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
        #expect(answer.status == 200)
        #expect(answer.json?["applied"]?.bool == false)
        #expect(answer.json?["error"]?.string?.contains("purchase_date_ms") == true)
    }

    @Test(arguments: [("transfer", 200, "erin"), ("keep", 409, "frank"), ("transferIfInactive", 409, "frank")])
    func restoreBehaviour_whenSubscriptionBelongsToAnother(restore: String, status: Int, owner: String) throws {
        let harness = try ServiceHarness(restore: restore, now: "2020-03-01T00:00:00Z")
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/frank/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let answer = harness.call("POST", "/v1/users/erin/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(answer.status == status)
        if status == 409 { #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use") }
        #expect(Self.readable(harness, owner, "2020-03", at: "2020-07-02T00:00:00Z") == true)
        let other = owner == "erin" ? "frank" : "erin"
        #expect(Self.readable(harness, other, "2020-03", at: "2020-07-02T00:00:00Z") == false)
    }

    @Test(arguments: StoreBackend.tested) func transferIfInactive_movesAnExpiredSubscription(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend, restore: "transferIfInactive", now: "2020-12-01T00:00:00Z")
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/frank/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("POST", "/v1/users/erin/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(Self.readable(harness, "erin", "2020-03", at: "2020-07-02T00:00:00Z") == true)
        #expect(Self.readable(harness, "frank", "2020-03", at: "2020-07-02T00:00:00Z") == false)
    }

    @Test(arguments: StoreBackend.tested) func publishingIssues_needsAdminToken_andSurvivesRestart(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        #expect(harness.call("POST", "/v1/users/gina/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        // An answer for the publication is cached by this check; publishing must not be hidden by it.
        #expect(harness.call("GET", "/v1/users/gina/issues/the-monthly/2020-07-special?at=2020-07-16T00:00:00Z").status == 404)
        let body = #"{"title": "July special", "published": "2020-07-15T00:00:00Z"}"#
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", json: body).status == 403)
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", token: "admin-token", json: #"{"title": 3}"#).status == 400)
        #expect(harness.call("PUT", "/v1/publications/the-daily/issues/x", token: "admin-token", json: body).status == 404)
        let put = harness.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", token: "admin-token", json: body)
        #expect(put.status == 200)
        #expect(put.json?["published"]?.string == "2020-07-15T00:00:00Z")
        #expect(Self.readable(harness, "gina", "2020-07-special", at: "2020-07-16T00:00:00Z") == true)
        harness.close(remove: false)
        let restarted = try ServiceHarness(path: harness.path)
        defer { restarted.close() }
        let issues = restarted.call("GET", "/v1/publications/the-monthly/issues").json?["issues"]?.elements.map { $0["id"]!.string! }
        #expect(issues?.contains("2020-07-special") == true)
        #expect(issues?.count == 13)
        #expect(Self.readable(restarted, "gina", "2020-07-special", at: "2020-07-16T00:00:00Z") == true)
        #expect(Self.readable(restarted, "gina", "2020-06", at: "2020-07-16T00:00:00Z") == true)
    }

    /// `GET /v1/publications` lists every publication of the catalog with its title and its issue
    /// count, which follows issues published through the API; the API and admin tokens may ask.
    @Test func publications_listTheCatalog_withTitlesAndIssueCounts() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/v1/publications", token: nil).status == 401)
        let body = #"{"title": "July special", "published": "2020-07-15T00:00:00Z"}"#
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", token: "admin-token", json: body).status == 200)
        for token in ["api-token", "admin-token"] {
            let answer = harness.call("GET", "/v1/publications", token: token)
            #expect(answer.status == 200)
            let listed = answer.json?["publications"]?.elements.map { $0 } ?? []
            #expect(listed.map { $0["publication"]?.string } == harness.service.catalog.publications.map(\.id))
            for entry in listed {
                let id = try #require(entry["publication"]?.string)
                let issues = harness.call("GET", "/v1/publications/\(id)/issues", token: token).json
                #expect(entry["title"]?.string == issues?["title"]?.string)
                #expect(entry["issueCount"]?.int64 == issues?["issues"].map { Int64($0.elements.map { $0 }.count) })
            }
            #expect(listed.first { $0["publication"]?.string == "the-monthly" }?["issueCount"]?.int64 == 13)
        }
    }

    @Test(arguments: StoreBackend.tested) func refreshDue_andMetrics(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend, now: "2020-07-15T00:00:00Z")
        defer { harness.close() }
        var receipt = String(decoding: try ServiceHarness.example("table-6-1"), as: UTF8.self)
        receipt = receipt.replacingOccurrences(of: "(base64 receipt)", with: "LATEST-6-1")
        #expect(harness.call("POST", "/v1/users/hal/receipts", json: receipt).status == 200)
        let due = harness.call("GET", "/v1/refresh-due?within=3d").json?["subscriptions"]?.elements.map { $0 } ?? []
        #expect(due.count == 1)
        #expect(due.first?["originalTransactionId"]?.string == "1000001")
        #expect(due.first?["userId"]?.string == "hal")
        #expect(due.first?["latestReceipt"]?.string == "LATEST-6-1")
        #expect(harness.call("GET", "/v1/refresh-due?within=1d").json?["subscriptions"]?.count == 0)
        #expect(harness.call("GET", "/v1/refresh-due?within=soon").status == 400)
        let metrics = harness.call("GET", "/metrics").body
        #expect(metrics.contains(#"masthead_requests_total{route="receipts",status="200"} 1"#))
        #expect(metrics.contains(#"masthead_request_duration_seconds_count{route="refresh_due"} 3"#))
        #expect(metrics.contains("masthead_store_errors_total 0"))
    }
}
