import Foundation
import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// The gate, `GET /v1/users/{userId}/issues/{publicationId}/{issueId}/gate`: the download check
/// as a status (204 or 403) with its reason code in `Masthead-Reason`, for a web server's
/// sub-request; and the check's reason in words.
struct GateRouteTests {
    static func gate(_ harness: ServiceHarness, _ issue: String, at: String? = "2020-07-02T00:00:00Z", user: String = "alice", publication: String = "the-monthly") -> HTTPResponse {
        OpenAPIDocumentTests.respond(harness, "GET", "/v1/users/\(user)/issues/\(publication)/\(issue)/gate" + (at.map { "?at=\($0)" } ?? ""), token: "api-token")
    }

    static func reason(_ response: HTTPResponse) -> String? {
        response.headers.first { $0.name == "Masthead-Reason" }?.value
    }

    @Test func gate_readableIssue_is204_withNoBody_andTheReasonCode() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let answer = Self.gate(harness, "2020-06")
        #expect(answer.status == 204)
        #expect(answer.body.isEmpty)
        #expect(Self.reason(answer) == "unlockedAtPeriodStart")
    }

    /// 403 carries the check's reason code, and the check's JSON, byte for byte, as its body.
    @Test func gate_unreadableIssue_is403_withTheChecksReasonAndBody() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let answer = Self.gate(harness, "2020-05")
        #expect(answer.status == 403)
        #expect(Self.reason(answer) == "publishedDuringLapse")
        #expect(answer.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        let check = harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05?at=2020-07-02T00:00:00Z")
        #expect(String(decoding: answer.body, as: UTF8.self) == check.body)
    }

    /// A reader never seen is answered as the check answers them: not subscribed, but a free issue is readable.
    @Test func gate_unknownUser_is403NotSubscribed_butAFreeIssueIs204() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let denied = Self.gate(harness, "2020-05", user: "nobody")
        #expect(denied.status == 403)
        #expect(Self.reason(denied) == "notSubscribed")
        let free = Self.gate(harness, "2020-12", at: "2021-01-02T00:00:00Z", user: "nobody")
        #expect(free.status == 204)
        #expect(Self.reason(free) == "free")
    }

    /// What the catalog does not have is refused (403), not 404: nginx answers a gate's 404 with 500.
    @Test func gate_unknownIssueOrPublication_is403_withTheErrorCodeAsReason() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let issue = Self.gate(harness, "1999-01")
        #expect(issue.status == 403)
        #expect(Self.reason(issue) == "unknown_issue")
        #expect(try JSONDocument(parsing: issue.body).root["error"]?["code"]?.string == "unknown_issue")
        let publication = Self.gate(harness, "2020-05", publication: "the-weekly")
        #expect(publication.status == 403)
        #expect(Self.reason(publication) == "unknown_publication")
        #expect(try JSONDocument(parsing: publication.body).root["error"]?["code"]?.string == "unknown_publication")
    }

    /// A bad request or a missing token keeps its status, as on the check.
    @Test func gate_otherErrors_areAnsweredAsOnTheCheck() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let badAt = Self.gate(harness, "2020-05", at: "yesterday")
        #expect(badAt.status == 400)
        #expect(Self.reason(badAt) == nil)
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/gate?environment=staging").status == 400)
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/gate", token: nil).status == 401)
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/gate", token: "wrong").status == 401)
    }

    /// At every instant, in any order (cached answers reused), the gate says what the check says.
    @Test(arguments: ["table-6-1", "table-6-2", "refund", "grace", "single-issue"])
    func gate_agreesWithTheCheck_atEveryInstant(receipt: String) throws {
        let harness = try ExplanationRouteTests.harness(receipt)
        defer { harness.close() }
        let start = DateText.rfc3339("2020-01-15T00:00:00Z")!
        var instants = (0..<60).map { start.adding(milliseconds: Int64($0) * 131 * 3_600_000) }
        var random = SeededGenerator(seed: 24)
        instants.shuffle(using: &random)
        for at in instants {
            for issue in ["2020-02", "2020-05", "2020-06", "2020-12"] {
                let check = try #require(harness.call("GET", "/v1/users/alice/issues/the-monthly/\(issue)?at=\(at)").json)
                let gate = Self.gate(harness, issue, at: at.description)
                let readable = try #require(check["readable"]?.bool as Bool?)
                #expect(gate.status == (readable ? 204 : 403), "\(issue) at \(at)")
                #expect(Self.reason(gate) == check["reason"]?["kind"]?.string, "\(issue) at \(at)")
            }
        }
    }

    /// Over a live server: 204 has no `Content-Length` and no body, and the connection goes on
    /// with the next request; HEAD of a 403 announces the length of GET's body.
    @Test func gate_overHTTP_204WithoutContentLength_keepsTheConnection_andHeadMirrorsGet() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        let token = ["Authorization": "Bearer api-token"]
        let readable = try #require(client.request("GET", "/v1/users/alice/issues/the-monthly/2020-06/gate?at=2020-07-02T00:00:00Z", headers: token))
        #expect(readable.status == 204)
        #expect(readable.headers["content-length"] == nil)
        #expect(readable.headers["masthead-reason"] == "unlockedAtPeriodStart")
        let denied = try #require(client.request("GET", "/v1/users/alice/issues/the-monthly/2020-05/gate?at=2020-07-02T00:00:00Z", headers: token))
        #expect(denied.status == 403)
        #expect(denied.headers["masthead-reason"] == "publishedDuringLapse")
        #expect(denied.body.contains(#""readable":false"#))
        client.send("HEAD /v1/users/alice/issues/the-monthly/2020-05/gate?at=2020-07-02T00:00:00Z HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\n\r\n")
        let head = try #require(client.response(bodyless: true))
        #expect(head.status == 403)
        #expect(head.headers["content-length"] == String(denied.body.utf8.count))
        #expect(head.headers["masthead-reason"] == "publishedDuringLapse")
        client.send("HEAD /v1/users/alice/issues/the-monthly/2020-06/gate?at=2020-07-02T00:00:00Z HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\n\r\n")
        let headReadable = try #require(client.response(bodyless: true))
        #expect(headReadable.status == 204)
        #expect(headReadable.headers["content-length"] == nil)
    }

    /// The check's JSON says its decision in words, as `masthead check` prints it.
    @Test func check_explanation_isTheDecisionInWords() throws {
        let harness = try ExplanationRouteTests.harness()
        defer { harness.close() }
        let denied = try #require(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05?at=2020-07-02T00:00:00Z").json)
        #expect(denied["explanation"]?.string == "published during a lapse (2020-04-20 12:00 → 2020-06-17 12:00)")
        let readable = try #require(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z").json)
        #expect(readable["explanation"]?.string == "unlocked when period #1 started (2020-06-17 12:00)")
        let free = try #require(harness.call("GET", "/v1/users/nobody/issues/the-monthly/2020-12?at=2021-01-02T00:00:00Z").json)
        #expect(free["explanation"]?.string == "free issue")
    }
}
