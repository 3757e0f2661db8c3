import Foundation
import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// `PUT`, `DELETE` and `GET` of users' app account tokens over a live server on port 0.
struct AppAccountTokenRouteTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let api = ["Authorization": "Bearer api-token"]

    /// A live server on a fresh service; `body` gets a client to it and the harness.
    static func withServer(_ body: (TestClient, ServiceHarness) throws -> Void) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        try body(try TestClient(port: server.port), harness)
    }

    static func json(_ response: TestClient.Response?) -> JSONValue? {
        response.flatMap { try? JSONDocument(parsing: $0.body).root }
    }

    static func code(_ response: TestClient.Response?) -> String? { json(response)?["error"]?["code"]?.string }

    /// The tokens `GET` lists for a user.
    static func listed(_ client: TestClient, _ user: String) -> [String]? {
        json(client.request("GET", "/v1/users/\(user)/app-account-tokens", headers: api))?["appAccountTokens"]?.elements.compactMap { $0["appAccountToken"]?.string }
    }

    @Test func put_linksTheToken_inLowerCase_andAgainChangesNothing() throws {
        try Self.withServer { client, harness in
            let put = try #require(client.request("PUT", "/v1/users/ana/app-account-tokens/\(Self.token.uppercased())", headers: Self.api))
            #expect(put.status == 200)
            #expect(put.body == #"{"userId":"ana","appAccountToken":"\#(Self.token)","linked":"2020-07-02T00:00:00Z"}"#)
            // Committed before the answer: another connection reads it.
            let reader = try SQLiteStore(path: harness.path, readOnly: true)
            #expect(try reader.userId(forAppAccountToken: Self.token) == "ana")
            harness.setNow("2020-07-03T00:00:00Z")
            let again = try #require(client.request("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api))
            #expect(again.status == 200)
            #expect(again.body == put.body)
            #expect(Self.listed(client, "ana") == [Self.token])
            // The user is now known, with no subscription.
            #expect(client.request("GET", "/v1/users/ana/entitlements", headers: Self.api)?.status == 200)
        }
    }

    @Test func put_tokenOfAnotherUser_is409_andTheMappingStays() throws {
        try Self.withServer { client, _ in
            #expect(client.request("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api)?.status == 200)
            let taken = client.request("PUT", "/v1/users/ben/app-account-tokens/\(Self.token.uppercased())", headers: Self.api)
            #expect(taken?.status == 409)
            #expect(Self.code(taken) == "app_account_token_in_use")
            #expect(Self.json(taken)?["error"]?["message"]?.string == "app account token \(Self.token) is linked to another user")
            #expect(Self.listed(client, "ana") == [Self.token])
            // A refusal is not a store failure.
            #expect(client.request("GET", "/health")?.status == 200)
            // Ben was not recorded by the refused write.
            #expect(client.request("GET", "/v1/users/ben/app-account-tokens", headers: Self.api)?.status == 404)
        }
    }

    @Test(arguments: [
        "not-a-uuid", "%7B3f2504e0-4f89-41d3-9a0c-0305e82c3301%7D", "3f2504e04f8941d39a0c0305e82c3301", "3f2504e0-4f89-41d3-9a0c-0305e82c330",
        "3f2504e0-4f89-41d3-9a0c-0305e82c3301%00", "3f2504e0-4f89-41d3-9a0c-0305e82c330g",
    ])
    func put_andDelete_ofATokenThatIsNotAUUID_are400(token: String) throws {
        try Self.withServer { client, _ in
            for method in ["PUT", "DELETE"] {
                let answer = client.request(method, "/v1/users/ana/app-account-tokens/\(token)", headers: Self.api)
                #expect(answer?.status == 400, "\(method) \(token)")
                #expect(Self.code(answer) == "invalid_app_account_token")
                #expect(Self.json(answer)?["error"]?["message"]?.string?.hasPrefix("the app account token is not a UUID") == true)
            }
            #expect(client.request("GET", "/v1/users/ana/app-account-tokens", headers: Self.api)?.status == 404)
        }
    }

    @Test func put_withAnInvalidUserId_is400() throws {
        try Self.withServer { client, _ in
            let answer = client.request("PUT", "/v1/users/ana%00x/app-account-tokens/\(Self.token)", headers: Self.api)
            #expect(answer?.status == 400)
            #expect(Self.code(answer) == "invalid_user_id")
        }
    }

    @Test func delete_removesTheOwnersToken_only() throws {
        try Self.withServer { client, _ in
            let put = try #require(client.request("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api))
            // Not Ben's: 404, and Ana keeps it.
            let notHis = client.request("DELETE", "/v1/users/ben/app-account-tokens/\(Self.token)", headers: Self.api)
            #expect(notHis?.status == 404)
            #expect(Self.code(notHis) == "unknown_app_account_token")
            #expect(Self.listed(client, "ana") == [Self.token])
            let deleted = client.request("DELETE", "/v1/users/ana/app-account-tokens/\(Self.token.uppercased())", headers: Self.api)
            #expect(deleted?.status == 200)
            #expect(deleted?.body == put.body)
            #expect(Self.listed(client, "ana") == [])
            #expect(Self.code(client.request("DELETE", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api)) == "unknown_app_account_token")
            // Free again: Ben may take it.
            #expect(client.request("PUT", "/v1/users/ben/app-account-tokens/\(Self.token)", headers: Self.api)?.status == 200)
        }
    }

    @Test func get_listsInLinkOrder_andAnUnknownUserIs404() throws {
        try Self.withServer { client, harness in
            let second = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
            #expect(client.request("PUT", "/v1/users/ana/app-account-tokens/\(second)", headers: Self.api)?.status == 200)
            harness.setNow("2020-07-03T00:00:00Z")
            #expect(client.request("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api)?.status == 200)
            let list = try #require(client.request("GET", "/v1/users/ana/app-account-tokens", headers: Self.api))
            #expect(list.status == 200)
            #expect(list.body == #"{"userId":"ana","appAccountTokens":[{"userId":"ana","appAccountToken":"\#(second)","linked":"2020-07-02T00:00:00Z"},{"userId":"ana","appAccountToken":"\#(Self.token)","linked":"2020-07-03T00:00:00Z"}]}"#)
            let unknown = client.request("GET", "/v1/users/zoe/app-account-tokens", headers: Self.api)
            #expect(unknown?.status == 404)
            #expect(Self.code(unknown) == "unknown_user")
            // A user who posted a receipt but has no token: an empty list.
            #expect(client.request("POST", "/v1/users/carl/receipts", headers: Self.api, body: try ServiceHarness.example("table-6-1"))?.status == 200)
            #expect(Self.listed(client, "carl") == [])
        }
    }

    @Test func tokenRoutes_needTheAPIToken() throws {
        try Self.withServer { client, _ in
            for (method, target) in [("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)"), ("DELETE", "/v1/users/ana/app-account-tokens/\(Self.token)"),
                ("GET", "/v1/users/ana/app-account-tokens")] {
                #expect(client.request(method, target)?.status == 401, "\(method) \(target)")
                #expect(client.request(method, target, headers: ["Authorization": "Bearer wrong-token"])?.status == 401, "\(method) \(target)")
            }
            #expect(client.request("POST", "/v1/users/ana/app-account-tokens/\(Self.token)", headers: Self.api)?.status == 405)
            #expect(Self.listed(client, "ana") == nil)
        }
    }

    /// A token change is logged like every write, so every other process on the file drops what
    /// it cached for the user; the other service lists it at once.
    @Test func tokenChanges_reachTheChangeLog_andAnotherService() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        let store = try SQLiteStore(path: first.path, readOnly: true)
        let position = try store.changeLogPosition()
        #expect(first.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(try store.changes(after: position, notFrom: 0).changes == [.user("ana")])
        #expect(second.call("GET", "/v1/users/ana/app-account-tokens").json?["appAccountTokens"]?.count == 1)
        let afterPut = try store.changeLogPosition()
        #expect(first.call("DELETE", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(try store.changes(after: afterPut, notFrom: 0).changes == [.user("ana")])
        #expect(second.call("GET", "/v1/users/ana/app-account-tokens").json?["appAccountTokens"]?.count == 0)
    }
}
