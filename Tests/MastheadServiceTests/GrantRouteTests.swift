import Foundation
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadTestSupport
import Testing

/// `PUT`, `GET` and `DELETE` of users' grants (R17), with the admin token: stored as given,
/// corrected by a second PUT, revoked by DELETE, and seen at once by the entitlement answers.
struct GrantRouteTests {
    static let printGrant = #"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-20", "end": "2020-06-17"}"#
    static let printAnswer =
        #"{"grantId":"g-1","source":"print","publications":["the-monthly"],"access":"archive","window":null,"#
        + #""start":"2020-04-20T00:00:00Z","end":"2020-06-18T00:00:00Z","revokedAt":null}"#
    static let makeGood = #"{"source": "makeGood", "publication": "the-monthly", "issues": ["2020-05"], "start": "2020-07-01T00:00:00Z"}"#

    static func put(_ harness: ServiceHarness, _ user: String, _ grantId: String, _ body: String) -> ServiceHarness.Answer {
        harness.call("PUT", "/v1/users/\(user)/grants/\(grantId)", token: "admin-token", json: body)
    }

    static func listed(_ harness: ServiceHarness, _ user: String) -> ServiceHarness.Answer {
        harness.call("GET", "/v1/users/\(user)/grants", token: "admin-token")
    }

    static func code(_ answer: ServiceHarness.Answer) -> String? { answer.json?["error"]?["code"]?.string }

    static func message(_ answer: ServiceHarness.Answer) -> String { answer.json?["error"]?["message"]?.string ?? "" }

    /// The download check's answer for one issue of *The Monthly*.
    static func check(_ harness: ServiceHarness, _ user: String, _ issue: String, at: String) -> JSONValue? {
        harness.call("GET", "/v1/users/\(user)/issues/the-monthly/\(issue)?at=\(at)").json
    }

    @Test(arguments: StoreBackend.tested) func put_new_is201_again_is200_andACorrectionReplacesIt(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let added = Self.put(harness, "ana", "g-1", Self.printGrant)
        #expect(added.status == 201)
        #expect(added.body == Self.printAnswer)
        #expect(Self.listed(harness, "ana").body == #"{"userId":"ana","grants":[\#(Self.printAnswer)]}"#)
        let again = Self.put(harness, "ana", "g-1", Self.printGrant)
        #expect(again.status == 200)
        #expect(again.body == Self.printAnswer)
        // A grantId in the body equal to the path's is accepted; the answer is a valid body too.
        #expect(Self.put(harness, "ana", "g-1", Self.printAnswer).status == 200)
        let corrected = Self.put(harness, "ana", "g-1", #"{"source": "comp", "publications": ["the-monthly"], "access": "streaming", "window": 2, "start": "2020-05-01"}"#)
        #expect(corrected.status == 200)
        let expected =
            #"{"grantId":"g-1","source":"comp","publications":["the-monthly"],"access":"streaming","window":2,"#
            + #""start":"2020-05-01T00:00:00Z","end":null,"revokedAt":null}"#
        #expect(corrected.body == expected)
        #expect(Self.listed(harness, "ana").body == #"{"userId":"ana","grants":[\#(expected)]}"#)
        // The user is recorded: the entitlements answer them, active through the grant.
        let entitlements = harness.call("GET", "/v1/users/ana/entitlements?at=2020-07-02T00:00:00Z&publication=the-monthly")
        #expect(entitlements.status == 200)
        let status = entitlements.json?["publications"]?.elements.first { _ in true }?["status"]
        #expect(status?["state"]?.string == "active", "\(entitlements.body)")
        #expect(status?["grantId"]?.string == "g-1")
        #expect(status?["grantSource"]?.string == "comp")
    }

    /// Alice's archive subscription lapsed from Apr 20 to Jun 17 (Table 6-1): May's issue,
    /// published in the lapse, is not hers until a print grant covers the lapse; the cached
    /// answer is dropped by the PUT, and the intervals name the grant.
    @Test(arguments: StoreBackend.tested) func spanGrant_bridgingALapse_isReadableInTheDownloadCheck_atOnce(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let before = Self.check(harness, "alice", "2020-05", at: "2020-07-02T00:00:00Z")
        #expect(before?["readable"]?.bool == false)
        #expect(before?["reason"]?["kind"]?.string == "publishedDuringLapse")
        #expect(Self.put(harness, "alice", "g-1", Self.printGrant).status == 201)
        let after = Self.check(harness, "alice", "2020-05", at: "2020-07-02T00:00:00Z")
        #expect(after?["readable"]?.bool == true, "\(String(describing: after))")
        let entitlements = harness.call("GET", "/v1/users/alice/entitlements?at=2020-07-02T00:00:00Z&publication=the-monthly").json
        let intervals = entitlements?["publications"]?.elements.flatMap { publication in
            (publication["periods"]?.elements.map { $0 } ?? []).flatMap { $0["intervals"]?.elements.map { $0 } ?? [] }
        } ?? []
        let grant = try #require(intervals.first { $0["kind"]?.string == "grant" })
        #expect(grant["grantId"]?.string == "g-1")
        #expect(grant["source"]?.string == "print")
        #expect(grant["transactionId"] == nil)
    }

    @Test(arguments: StoreBackend.tested) func issueGrant_thenDelete_revokesFromNowOn_andASecondDeleteChangesNothing(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(Self.check(harness, "ben", "2020-05", at: "2020-07-02T00:00:00Z")?["readable"]?.bool == false)
        #expect(Self.put(harness, "ben", "mg-1", Self.makeGood).status == 201)
        let granted = Self.check(harness, "ben", "2020-05", at: "2020-07-02T00:00:00Z")
        #expect(granted?["readable"]?.bool == true)
        #expect(granted?["reason"]?["kind"]?.string == "granted")
        #expect(granted?["reason"]?["grantId"]?.string == "mg-1")
        #expect(granted?["reason"]?["source"]?.string == "makeGood")
        harness.setNow("2020-07-10T00:00:00Z")
        let revoked = harness.call("DELETE", "/v1/users/ben/grants/mg-1", token: "admin-token")
        #expect(revoked.status == 200)
        let expected =
            #"{"grantId":"mg-1","source":"makeGood","publication":"the-monthly","issues":["2020-05"],"#
            + #""start":"2020-07-01T00:00:00Z","revokedAt":"2020-07-10T00:00:00Z"}"#
        #expect(revoked.body == expected)
        // Never retroactively: before the revocation it still gave the issue.
        #expect(Self.check(harness, "ben", "2020-05", at: "2020-07-02T00:00:00Z")?["readable"]?.bool == true)
        let denied = Self.check(harness, "ben", "2020-05", at: "2020-07-11T00:00:00Z")
        #expect(denied?["readable"]?.bool == false)
        #expect(denied?["reason"]?["kind"]?.string == "grantRevoked")
        #expect(denied?["reason"]?["revokedAt"]?.string == "2020-07-10T00:00:00Z")
        harness.setNow("2020-08-01T00:00:00Z")
        let again = harness.call("DELETE", "/v1/users/ben/grants/mg-1", token: "admin-token")
        #expect(again.status == 200)
        #expect(again.body == expected)
        #expect(Self.listed(harness, "ben").body == #"{"userId":"ben","grants":[\#(expected)]}"#)
    }

    @Test(arguments: StoreBackend.tested) func grantIdHeldByAnotherUser_is409_andNothingChanges(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(Self.put(harness, "ana", "g-1", Self.printGrant).status == 201)
        let taken = Self.put(harness, "ben", "g-1", Self.makeGood)
        #expect(taken.status == 409)
        #expect(Self.code(taken) == "grant_belongs_to_another_user")
        #expect(Self.message(taken) == "grant g-1 belongs to another user")
        #expect(Self.listed(harness, "ana").body == #"{"userId":"ana","grants":[\#(Self.printAnswer)]}"#)
        // Ben was not recorded, nothing was granted to him, and a refusal is not a store failure.
        #expect(Self.code(Self.listed(harness, "ben")) == "unknown_user")
        #expect(Self.check(harness, "ben", "2020-05", at: "2020-07-02T00:00:00Z")?["readable"]?.bool == false)
        #expect(harness.call("GET", "/health", token: nil).status == 200)
        // Nor may he revoke it.
        let revoke = harness.call("DELETE", "/v1/users/ben/grants/g-1", token: "admin-token")
        #expect(revoke.status == 404)
        #expect(Self.code(revoke) == "unknown_grant")
        #expect(Self.listed(harness, "ana").body == #"{"userId":"ana","grants":[\#(Self.printAnswer)]}"#)
    }

    @Test(arguments: StoreBackend.tested) func delete_ofAGrantTheUserDoesNotHave_is404(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(Self.put(harness, "ana", "g-1", Self.printGrant).status == 201)
        for (user, grantId) in [("ana", "g-2"), ("nobody", "g-1"), ("ana", "G-1")] {
            let answer = harness.call("DELETE", "/v1/users/\(user)/grants/\(grantId)", token: "admin-token")
            #expect(answer.status == 404, "\(user) \(grantId)")
            #expect(Self.code(answer) == "unknown_grant")
            #expect(Self.message(answer) == "user \(user) has no grant \(grantId)")
        }
        // Two spellings of é are two grant ids.
        #expect(Self.put(harness, "ana", "caf%C3%A9", Self.printGrant).status == 201)
        #expect(harness.call("DELETE", "/v1/users/ana/grants/cafe%CC%81", token: "admin-token").status == 404)
        #expect(Self.listed(harness, "ana").json?["grants"]?.elements.map { $0["revokedAt"]?.isNull } == [true, true])
    }

    @Test(arguments: StoreBackend.tested) func grants_andRevocations_surviveARestart(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        #expect(Self.put(harness, "ana", "g-1", Self.printGrant).status == 201)
        #expect(Self.put(harness, "ben", "mg-1", Self.makeGood).status == 201)
        #expect(harness.call("DELETE", "/v1/users/ben/grants/mg-1", token: "admin-token").status == 200)
        let listed = [Self.listed(harness, "ana").body, Self.listed(harness, "ben").body]
        harness.close(remove: false)
        let restarted = try ServiceHarness(backend: backend, path: harness.path)
        defer { restarted.close() }
        #expect([Self.listed(restarted, "ana").body, Self.listed(restarted, "ben").body] == listed)
        #expect(listed[1].contains(#""revokedAt":"2020-07-02T00:00:00Z""#))
        #expect(Self.check(restarted, "ana", "2020-05", at: "2020-07-02T00:00:00Z")?["readable"]?.bool == true)
        #expect(Self.check(restarted, "ben", "2020-05", at: "2020-07-01T12:00:00Z")?["readable"]?.bool == true)
        #expect(Self.check(restarted, "ben", "2020-05", at: "2020-07-03T00:00:00Z")?["reason"]?["kind"]?.string == "grantRevoked")
    }

    /// Each body is refused with a 400 naming what is wrong and where, and nothing is stored.
    @Test(arguments: [
        (#"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "missing field $.source (line 1)"),
        (#"{"source": "", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.source (line 1)"),
        (#"{"source": "pr\u0000int", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", #""pr\u0000int" at $.source"#),
        (#"{"source": 7, "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.source (line 1)"),
        (#"{"source": "print", "publications": "the-monthly", "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.publications (line 1)"),
        (#"{"source": "print", "publications": [], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.publications (line 1)"),
        (#"{"source": "print", "publications": ["the-monthly", "the-daily"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant",
         #"invalid value "the-daily" at $.publications[1] (line 1): expected a publication of the catalog"#),
        (#"{"source": "print", "publications": ["the-monthly", "the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.publications[1]"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "weekly", "start": "2020-01-01"}"#, "invalid_grant", "$.access (line 1)"),
        (#"{"source": "print", "publications": ["the-monthly"], "start": "2020-01-01"}"#, "invalid_grant", "missing field $.access"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "streaming", "window": 0, "start": "2020-01-01"}"#, "invalid_grant", "$.window (line 1)"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "window": 3, "start": "2020-01-01"}"#, "invalid_grant", "$.window"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive"}"#, "invalid_grant", "missing field $.start"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "yesterday"}"#, "invalid_grant", "$.start (line 1)"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-02-30"}"#, "invalid_grant", "$.start (line 1)"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-02-01", "end": "2020-01-01"}"#, "invalid_grant", "$.end"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-02-01", "revokedAt": "soon"}"#, "invalid_grant", "$.revokedAt (line 1)"),
        (#"{"source": "gift", "publication": "the-daily", "issues": ["2020-05"], "start": "2020-01-01"}"#, "invalid_grant", "$.publication (line 1)"),
        (#"{"source": "gift", "publication": "the-monthly", "issues": [], "start": "2020-01-01"}"#, "invalid_grant", "$.issues"),
        (#"{"source": "gift", "publication": "the-monthly", "issues": ["2020-05", "2020-05"], "start": "2020-01-01"}"#, "invalid_grant", "$.issues[1]"),
        (#"{"source": "gift", "publication": "the-monthly", "issues": ["2020-05"], "start": "2020-01-01", "end": "2021-01-01"}"#, "invalid_grant", "$.end"),
        (#"{"source": "gift", "publication": "the-monthly", "issues": ["2020-05"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "not both"),
        (#"{"sorce": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", #"$.sorce (line 1): expected no such grant field (did you mean "source"?)"#),
        (#"{"grantId": "g-2", "source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_grant", "$.grantId"),
        ("{\n  \"source\": \"print\",\n  \"publications\": [\"the-monthly\"],\n  \"access\": \"archive\",\n  \"start\": \"2020-01-01\",\n  \"end\": 5\n}", "invalid_grant", "$.end (line 6)"),
        ("{\n  \"source\": \"print\",\n  \"publications\": [\n    \"the-monthly\",\n    \"the-weekly\"\n  ],\n  \"access\": \"archive\",\n  \"start\": \"2020-01-01\"\n}", "invalid_grant", "$.publications[1] (line 5)"),
        (#"["print"]"#, "invalid_grant", "expected a grant object"),
        (#"{"source": "print", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#, "invalid_json", #"duplicate key "source""#),
        ("", "invalid_json", "invalid JSON"),
        (#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01""#, "invalid_json", "invalid JSON"),
    ])
    func badBody_is400_namingWhatAndWhere_andNothingIsStored(body: String, code: String, fragment: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let answer = Self.put(harness, "ana", "g-1", body)
        #expect(answer.status == 400)
        #expect(Self.code(answer) == code, "\(answer.body)")
        #expect(Self.message(answer).contains(fragment), "\(answer.body)")
        #expect(Self.code(Self.listed(harness, "ana")) == "unknown_user")
    }

    /// Bytes no JSON text may hold: invalid UTF-8 in a string, a raw NUL.
    @Test(arguments: [
        Array(#"{"source": "pr"#.utf8) + [0xFF] + Array(#"int", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#.utf8),
        Array(#"{"source": "pr"#.utf8) + [0x00] + Array(#"int", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#.utf8),
        Array(#"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#.utf8) + [0x00],
    ])
    func bodyBytesThatAreNotJSON_are400(body: [UInt8]) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let answer = harness.call("PUT", "/v1/users/ana/grants/g-1", token: "admin-token", body: body)
        #expect(answer.status == 400)
        #expect(Self.code(answer) == "invalid_json", "\(answer.body)")
        #expect(Self.message(answer).contains("line 1"), "\(answer.body)")
        #expect(Self.code(Self.listed(harness, "ana")) == "unknown_user")
    }

    @Test func overlongSourceAndIssueIds_are400_namingTheField() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let long = String(repeating: "x", count: 257)
        let source = Self.put(harness, "ana", "g-1", #"{"source": "\#(long)", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01"}"#)
        #expect(Self.code(source) == "invalid_grant")
        #expect(Self.message(source).contains("$.source (line 1): expected at most 256 bytes"), "\(source.body)")
        let issue = Self.put(harness, "ana", "g-1", #"{"source": "gift", "publication": "the-monthly", "issues": ["2020-05", "\#(long)"], "start": "2020-01-01"}"#)
        #expect(Self.code(issue) == "invalid_grant")
        #expect(Self.message(issue).contains("$.issues[1] (line 1)"), "\(issue.body)")
        let longest = String(repeating: "y", count: 256)
        #expect(Self.put(harness, "ana", "g-1", #"{"source": "\#(longest)", "publication": "the-monthly", "issues": ["\#(longest)"], "start": "2020-01-01"}"#).status == 201)
    }

    @Test func grantIdInThePath_breakingTheRules_is400_beforeTheBodyIsRead() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for (grantId, rule) in [("g%00x", "control character U+0000"), ("%FF", "not valid UTF-8"), (String(repeating: "g", count: 257), "longer than 256 bytes")] {
            for method in ["PUT", "DELETE"] {
                let answer = harness.call(method, "/v1/users/ana/grants/\(grantId)", token: "admin-token", json: Self.printGrant)
                #expect(answer.status == 400, "\(method) \(grantId)")
                #expect(Self.code(answer) == "invalid_grant_id")
                #expect(Self.message(answer).contains(rule), "\(answer.body)")
            }
        }
        // Ids starting with licence: are kept for licence memberships.
        let licence = Self.put(harness, "ana", "licence:acme", Self.printGrant)
        #expect(licence.status == 400)
        #expect(Self.code(licence) == "invalid_grant")
        #expect(Self.message(licence).contains("$.grantId"))
        #expect(Self.code(Self.listed(harness, "ana")) == "unknown_user")
    }

    /// Over a live server, a PUT's body is bounded by `maxBodyBytes` as every route's is.
    @Test func putOverHTTP_isStored_andABodyOverTheLimitIs413() throws {
        let harness = try ServiceHarness { $0.http.maxBodyBytes = 1_000 }
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let admin = ["Authorization": "Bearer admin-token"]
        let stored = try #require(try TestClient(port: server.port).request("PUT", "/v1/users/ana/grants/g-1", headers: admin, body: Array(Self.printGrant.utf8)))
        #expect(stored.status == 201)
        #expect(stored.body == Self.printAnswer)
        let padded = Self.printGrant.dropLast() + #", "sorce": "\#(String(repeating: "x", count: 1_000))"}"#
        let refused = try TestClient(port: server.port).request("PUT", "/v1/users/ben/grants/g-2", headers: admin, body: Array(padded.utf8))
        #expect(refused?.status == 413)
        #expect(Self.code(Self.listed(harness, "ben")) == "unknown_user")
    }

    @Test func everyGrantRoute_needsTheAdminToken() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for (method, target) in [("GET", "/v1/users/ana/grants"), ("PUT", "/v1/users/ana/grants/g-1"), ("DELETE", "/v1/users/ana/grants/g-1")] {
            let api = harness.call(method, target, token: "api-token", json: Self.printGrant)
            #expect(api.status == 403, "\(method) \(target)")
            #expect(Self.code(api) == "forbidden")
            #expect(harness.call(method, target, token: nil, json: Self.printGrant).status == 401)
            #expect(harness.call(method, target, token: "wrong", json: Self.printGrant).status == 401)
        }
        #expect(harness.call("POST", "/v1/users/ana/grants/g-1", token: "admin-token", json: Self.printGrant).status == 405)
        #expect(harness.call("POST", "/v1/users/ana/grants", token: "admin-token", json: Self.printGrant).status == 405)
        #expect(Self.code(Self.listed(harness, "ana")) == "unknown_user")
    }
}
