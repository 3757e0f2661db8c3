import Foundation
import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
@testable import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// `POST /v1/users/{userId}/restore`: the customer's history asked of the App Store Server API
/// (the fake), verified, stored and linked to the user under the `restore` behaviour.
struct RestoreTests {
    static let api = ["Authorization": "Bearer api-token"]

    /// Table 6-1's transactions, signed; subscription 1000001.
    static func table61(signed: String = "2020-07-01T00:00:00Z", environment: String = "Production") throws -> [String] {
        try [
            ("1000001", "2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z"), ("1000002", "2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z"),
            ("1000003", "2020-06-17T12:00:00Z", "2020-07-17T12:00:00Z"),
        ].map { id, from, to in try SignedFixtures.transaction(id, original: "1000001", from: from, to: to, signed: signed, environment: environment) }
    }

    /// A fake whose production server knows Table 6-1's customer by any of its transaction ids.
    static func fake(sandbox: Bool = false) throws -> FakeAppStoreServerAPI {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        let history = try table61(environment: sandbox ? "Sandbox" : "Production")
        fake.state.withLock { state in
            let customer = FakeAppStoreServerAPI.Customer(transactionIds: ["1000001", "1000002", "1000003"], history: history)
            if sandbox { state.sandbox.customers = [customer] } else { state.production.customers = [customer] }
        }
        return fake
    }

    /// A service asking `fake` with the fake's key (none when nil), under `restore`.
    static func harness(_ fake: FakeAppStoreServerAPI?, restore: String = "transfer") throws -> ServiceHarness {
        try ServiceHarness(restore: restore) { configuration in
            SignedFixtures.configure(&configuration)
            configuration.appStoreServerAPIBackoffMilliseconds = 1
            configuration.appStoreServerAPIAttempts = 2
            guard let fake else { return }
            fake.configure(&configuration)
        }
    }

    /// A service whose restores ask `baseURL` + `/production` and `/sandbox` with the fake's key,
    /// a restore timeout of `restoreTimeout` and a handler timeout of `handlerTimeout` milliseconds.
    static func harness(baseURL: String, restoreTimeout: Int, handlerTimeout: Int) throws -> ServiceHarness {
        try ServiceHarness { configuration in
            SignedFixtures.configure(&configuration)
            configuration.appStoreServerAPIBackoffMilliseconds = 1
            configuration.appStoreServerAPIAttempts = 2
            FakeAppStoreServerAPI.configure(&configuration, productionURL: baseURL + "/production", sandboxURL: baseURL + "/sandbox")
            configuration.restoreTimeoutMilliseconds = restoreTimeout
            configuration.http.handlerTimeoutMilliseconds = handlerTimeout
        }
    }

    static func body(_ transactionId: String) -> String { #"{"transactionId": "\#(transactionId)"}"# }

    /// Every Table 6-1 row's readable issues, as `get` answers the download checks.
    static func expectTable61(_ user: String, _ get: (String) -> String?) {
        for row in Table61.rows {
            for issue in ["2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"] {
                let body = get("/v1/users/\(user)/issues/the-monthly/\(issue)?at=\(row.at)") ?? "no answer"
                let readable = (try? JSONDocument(parsing: Array(body.utf8)).root["readable"]?.bool) ?? nil
                #expect(readable == row.readable.contains(issue), "\(issue) at \(row.at): \(body)")
            }
        }
    }

    /// Over HTTP: a restore with the last transaction's id reads every page of the history,
    /// answers the entitlements, and every download check answers Table 6-1.
    @Test func restore_linksTheHistory_andTheCheckAnswers() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        let answer = client.request("POST", "/v1/users/ivy/restore", headers: Self.api, body: Array(Self.body("1000003").utf8))
        #expect(answer?.status == 200, "\(answer?.body ?? "no answer")")
        #expect(answer?.body.contains(#""user_id":"ivy""#) == true)
        #expect(fake.seen.map(\.target) == ["/production/inApps/v2/history/1000003?sort=ASCENDING", "/production/inApps/v2/history/1000003?sort=ASCENDING&revision=2"])
        #expect(fake.seen.allSatisfy { $0.refusal == nil })
        Self.expectTable61("ivy") { client.request("GET", $0, headers: Self.api)?.body }
    }

    /// A customer Apple knows only in the sandbox is asked there after production's "not found".
    @Test func restore_fallsBackToTheSandbox() throws {
        let fake = try Self.fake(sandbox: true)
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/restore", json: Self.body("1000001"))
        #expect(answer.status == 200, "\(answer.body)")
        #expect(fake.seen.map { $0.target.split(separator: "/")[0] } == ["production", "sandbox", "sandbox"])
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-06", at: "2020-07-01T12:00:00Z&environment=sandbox") == true)
    }

    /// The subscription belongs to another user: `transfer` moves it, `keep` answers 409 and
    /// leaves it, `transferIfInactive` answers 409 while it covers the present and moves it after.
    @Test(arguments: [
        ("transfer", "2020-07-02T00:00:00Z", 200), ("keep", "2020-07-02T00:00:00Z", 409), ("transferIfInactive", "2020-07-02T00:00:00Z", 409),
        ("transferIfInactive", "2020-08-01T00:00:00Z", 200),
    ])
    func restore_ofAnotherUsersSubscription_followsTheRestoreBehaviour(restore: String, now: String, status: Int) throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake, restore: restore)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/first/transactions", json: SignedFixtures.transactions(try Self.table61())).status == 200)
        harness.setNow(now)
        let answer = harness.call("POST", "/v1/users/second/restore", json: Self.body("1000002"))
        #expect(answer.status == status, "\(answer.body)")
        if status == 409 { #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use") }
        let moved = status == 200
        #expect(ServiceRouterTests.readable(harness, "second", "2020-03", at: "2020-03-01T12:00:00Z") == moved)
        #expect(ServiceRouterTests.readable(harness, "first", "2020-03", at: "2020-03-01T12:00:00Z") == !moved)
    }

    /// Apple's history of a subscription (1000001, renewed as 1000002) whose signed transactions
    /// carry an app account token: the token, the fake that answers it, and the history.
    static func tokenBoundSubscription() throws -> (token: String, fake: FakeAppStoreServerAPI, history: [String]) {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        let history = try [
            ("1000001", "2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z"), ("1000002", "2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z"),
        ].map { id, from, to in try SignedFixtures.transaction(id, original: "1000001", from: from, to: to, signed: "2020-07-01T00:00:00Z", token: token) }
        fake.state.withLock { $0.production.customers = [FakeAppStoreServerAPI.Customer(transactionIds: ["1000001", "1000002"], history: history)] }
        return (token, fake, history)
    }

    /// A transaction id is no secret: a subscription whose signed transactions carry an app
    /// account token of another user is never moved by restore, even under `transfer`; its owner
    /// restores it.
    @Test func restore_neverMovesASubscriptionBoundToAnotherUsersAppAccountToken() throws {
        let (token, fake, history) = try RestoreTests.tokenBoundSubscription()
        defer { fake.stop() }
        let harness = try Self.harness(fake, restore: "transfer")
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/first/app-account-tokens/\(token)").status == 200)
        #expect(harness.call("POST", "/v1/users/first/transactions", json: SignedFixtures.transactions(history)).status == 200)
        let answer = harness.call("POST", "/v1/users/second/restore", json: Self.body("1000002"))
        #expect(answer.status == 409, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use")
        #expect(ServiceRouterTests.readable(harness, "second", "2020-03", at: "2020-03-01T12:00:00Z") == false)
        #expect(ServiceRouterTests.readable(harness, "first", "2020-03", at: "2020-03-01T12:00:00Z") == true)
        #expect(harness.call("POST", "/v1/users/first/restore", json: Self.body("1000002")).status == 200)
    }

    /// Each way a restore can fail answers its status and code, and stores nothing.
    @Test(arguments: [
        ("no key", #"{"transactionId": "1000001"}"#, 503, "app_store_server_api_not_configured"),
        ("key refused", #"{"transactionId": "1000001"}"#, 503, "app_store_server_api_key_refused"),
        ("unknown", #"{"transactionId": "999"}"#, 404, "transaction_not_found"),
        ("tampered", #"{"transactionId": "1000001"}"#, 502, "apple_signed_data_refused"),
        ("apple down", #"{"transactionId": "1000001"}"#, 502, "app_store_server_api_unavailable"),
        ("not digits", #"{"transactionId": "10000x1"}"#, 400, "invalid_transaction_id"),
        ("number", #"{"transactionId": 1000001}"#, 400, "invalid_transaction_id"),
        ("missing", #"{"id": "1000001"}"#, 400, "invalid_transaction_id"),
        ("not json", #"{"transactionId": "#, 400, "invalid_json"),
    ])
    func restore_failure_answersItsCode_andStoresNothing(failure: String, body: String, status: Int, code: String) throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { state in
            switch failure {
            case "key refused": state.failures = [(401, nil)]
            case "apple down": state.failures = [(503, nil), (503, nil)]
            case "tampered": state.production.customers[0].history[1] = SignedFixtures.tampered(state.production.customers[0].history[1])
            default: break
            }
        }
        let harness = try Self.harness(failure == "no key" ? nil : fake)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/restore", json: body)
        #expect(answer.status == status, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == code, "\(answer.body)")
        let message = answer.json?["error"]?["message"]?.string ?? ""
        switch failure {
        case "key refused": #expect(message.contains("key id \(FakeAppStoreServerAPI.keyId)"), "\(message)")
        case "tampered": #expect(message.contains("$.signedTransactions[1]"), "\(message)")
        case "not digits", "number", "missing": #expect(message.contains("$.transactionId"), "\(message)")
        default: break
        }
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").json?["error"]?["code"]?.string == "unknown_user")
    }

    /// Apple trickling its answer (a byte every 100 ms, which no idle timeout ends) keeps no
    /// restore: each answers 504 `restore_timeout` at its deadline, before the handler timeout,
    /// and frees its slot, so a fifth restore after four is served too (not 503
    /// `too_many_restores`); nothing is stored.
    @Test func restores_ofATrickledAnswer_answer504_freeTheirSlots_andStoreNothing() throws {
        let apple = try HostileHTTPServer(.trickle(intervalMilliseconds: 100, bytes: 300))
        defer { apple.stop() }
        let harness = try Self.harness(baseURL: apple.url, restoreTimeout: 1000, handlerTimeout: 6000)
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        for restore in 1...5 {
            let client = try TestClient(port: server.port, timeoutMilliseconds: 20_000)
            let answer = client.request("POST", "/v1/users/ivy/restore", headers: Self.api, body: Array(Self.body("1000001").utf8))
            #expect(answer?.status == 504, "restore \(restore): \(answer?.body ?? "no answer")")
            #expect(answer?.body.contains(#""code":"restore_timeout""#) == true, "restore \(restore): \(answer?.body ?? "no answer")")
        }
        #expect(apple.waitUntilFinished(5, seconds: 10), "Apple's connections are still open: \(apple.counts)")
        #expect(apple.counts.closedEarly == 5)
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").json?["error"]?["code"]?.string == "unknown_user")
    }

    /// A restore whose Apple answers later than `restoreTimeoutMilliseconds` (less than the
    /// handler timeout) is answered 504 `restore_timeout`, not 503 `handler_timeout`, and is not
    /// stored afterwards, when Apple's late answer has come.
    @Test func restore_slowerThanItsTimeout_answers504_andIsNeverStoredAfterwards() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.delayMilliseconds = 1500 }
        let harness = try Self.harness(baseURL: fake.productionURL.replacingOccurrences(of: "/production", with: ""), restoreTimeout: 500, handlerTimeout: 5500)
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port, timeoutMilliseconds: 20_000)
        let answer = client.request("POST", "/v1/users/ivy/restore", headers: Self.api, body: Array(Self.body("1000003").utf8))
        #expect(answer?.status == 504, "\(answer?.body ?? "no answer")")
        #expect(answer?.body.contains(#""code":"restore_timeout""#) == true, "\(answer?.body ?? "no answer")")
        // Long enough for Apple's two late pages (1.5 s each) and a write, had the restore gone on.
        Thread.sleep(forTimeInterval: 4)
        #expect(fake.seen.count <= 1, "\(fake.seen.map(\.target))")
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").json?["error"]?["code"]?.string == "unknown_user")
    }

    /// A slow Apple that answers within the restore timeout: the restore finishes, stored and
    /// answered 200.
    @Test func restore_slowButInTime_isStored_andAnswered200() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.delayMilliseconds = 200 }
        let harness = try Self.harness(baseURL: fake.productionURL.replacingOccurrences(of: "/production", with: ""), restoreTimeout: 10_000, handlerTimeout: 15_000)
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/ivy/restore", json: Self.body("1000003"))
        #expect(answer.status == 200, "\(answer.body)")
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-06", at: "2020-07-01T12:00:00Z") == true)
    }

    /// The restore's write checks its deadline when it runs: past it, nothing is stored and the
    /// restore answers 504 `restore_timeout`.
    @Test func restoresWrite_pastItsDeadline_storesNothing() throws {
        let harness = try ServiceHarness { SignedFixtures.configure(&$0) }
        defer { harness.close() }
        let verifier = try #require(harness.service.signedDataVerifier)
        let history = try Self.table61().map { try verifier.transaction($0, path: "$").transaction }
        let answer = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        harness.service.postPurchases(
            userId: "ivy", transactions: history, renewals: [], latestReceipt: nil, deadline: 0,
            completion: harness.router.purchasesAnswer(userId: "ivy", environment: .production, what: "restored transactions") { response in
                answer.withLock { $0 = response }
                done.signal()
            })
        done.wait()
        let response = try #require(answer.withLock { $0 })
        #expect(response.status == 504)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"restore_timeout""#))
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").json?["error"]?["code"]?.string == "unknown_user")
    }
}
