import Foundation
import MastheadJSON
import MastheadService
import Testing

/// User, publication and issue ids taken from the path are checked before anything is looked up
/// or stored: one id names one thing, byte for byte.
struct PathIdentifierTests {
    static func code(_ answer: ServiceHarness.Answer) -> String? { answer.json?["error"]?["code"]?.string }

    @Test func userIdWithNUL_isRefused_andNeverReachesAnotherUser() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/victim/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let read = harness.call("GET", "/v1/users/victim%00x/entitlements")
        #expect(read.status == 400)
        #expect(Self.code(read) == "invalid_user_id")
        #expect(read.json?["error"]?["message"]?.string?.contains("control character U+0000") == true)
        #expect(harness.call("GET", "/v1/users/victim%00x/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z").status == 400)
        let posted = harness.call("POST", "/v1/users/carol%00evil/receipts", body: try ServiceHarness.example("refund"))
        #expect(posted.status == 400)
        #expect(Self.code(posted) == "invalid_user_id")
        #expect(harness.call("GET", "/v1/users/carol/entitlements").status == 404)
    }

    @Test(arguments: [
        ("%01", "control character U+0001"), ("a%1Fb", "control character U+001F"), ("a%7F", "control character U+007F"),
        ("a%C2%80", "control character U+0080"), ("a%C2%9F", "control character U+009F"),
        ("%FF", "not valid UTF-8"), ("%FE", "not valid UTF-8"), ("a%C3", "not valid UTF-8"), ("%ED%A0%80", "not valid UTF-8"),
        (String(repeating: "x", count: 257), "longer than 256 bytes"),
    ])
    func userId_breakingARule_is400_namingTheRule(id: String, rule: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for target in ["/v1/users/\(id)/entitlements", "/v1/users/\(id)/issues/the-monthly/2020-06"] {
            let answer = harness.call("GET", target)
            #expect(answer.status == 400, "\(target)")
            #expect(Self.code(answer) == "invalid_user_id")
            #expect(answer.json?["error"]?["message"]?.string?.contains(rule) == true, "\(answer.body)")
        }
        let posted = harness.call("POST", "/v1/users/\(id)/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(posted.status == 400)
        #expect(harness.call("GET", "/v1/refresh-due?within=1000d").json?["subscriptions"]?.count == 0)
    }

    @Test func invalidUTF8_neverMakesTwoIdsOne() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/%FF/receipts", body: try ServiceHarness.example("table-6-1")).status == 400)
        #expect(harness.call("GET", "/v1/users/%FE/entitlements").status == 400)
        // U+FFFD sent as its own valid UTF-8 is an ordinary character.
        #expect(harness.call("POST", "/v1/users/%EF%BF%BD/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("GET", "/v1/users/%EF%BF%BD/entitlements").status == 200)
    }

    @Test func validIds_upToTheLimit_areServed() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let longest = String(repeating: "y", count: 256)
        #expect(harness.call("POST", "/v1/users/\(longest)/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("GET", "/v1/users/\(longest)/entitlements").json?["user_id"]?.string == longest)
        #expect(harness.call("POST", "/v1/users/jos%C3%A9%20m/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("GET", "/v1/users/jos%C3%A9%20m/entitlements").json?["user_id"]?.string == "josé m")
    }

    @Test func publicationAndIssueIds_areCheckedToo() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let check = harness.call("GET", "/v1/users/u/issues/the-monthly%00x/2020-06")
        #expect(check.status == 400)
        #expect(Self.code(check) == "invalid_publication_id")
        let issue = harness.call("GET", "/v1/users/u/issues/the-monthly/2020-06%00x")
        #expect(issue.status == 400)
        #expect(Self.code(issue) == "invalid_issue_id")
        #expect(Self.code(harness.call("GET", "/v1/publications/the-monthly%FF/issues")) == "invalid_publication_id")
        let body = #"{"title": "Special", "published": "2020-07-15T00:00:00Z"}"#
        let put = harness.call("PUT", "/v1/publications/the-monthly/issues/2020-07%0Aspecial", token: "admin-token", json: body)
        #expect(put.status == 400)
        #expect(Self.code(put) == "invalid_issue_id")
        #expect(put.json?["error"]?["message"]?.string?.contains("control character U+000A") == true)
        #expect(harness.call("GET", "/v1/publications/the-monthly/issues").json?["issues"]?.count == 12)
    }
}
