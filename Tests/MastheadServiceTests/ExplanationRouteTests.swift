import Foundation
import MastheadHTTP
import MastheadJSON
import MastheadTestSupport
import Testing

/// What a support agent asks with the admin token: the one-paragraph answer about an issue
/// (`…/explanation`) and the timeline picture (`…/timeline.svg`).
struct ExplanationRouteTests {
    /// A harness holding the shipped receipt `receipt` for `user` (its id percent-encoded as given).
    static func harness(_ receipt: String = "table-6-1", user: String = "alice") throws -> ServiceHarness {
        let harness = try ServiceHarness()
        let posted = harness.call("POST", "/v1/users/\(user)/receipts", body: try ServiceHarness.example(receipt))
        #expect(posted.status == 200, "\(posted.body)")
        return harness
    }

    static func explanation(_ harness: ServiceHarness, _ issue: String, at: String, user: String = "alice") -> ServiceHarness.Answer {
        harness.call("GET", "/v1/users/\(user)/issues/the-monthly/\(issue)/explanation?at=\(at)", token: "admin-token")
    }

    @Test func explanation_ofADeniedIssue_namesTheLapseAndWhatTheResubscriptionUnlocked() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let answer = Self.explanation(harness, "2020-05", at: "2020-07-02T00:00:00Z")
        #expect(answer.status == 200)
        let json = try #require(answer.json)
        #expect(json["userId"]?.string == "alice")
        #expect(json["publication"]?.string == "the-monthly")
        #expect(json["issue"]?.string == "2020-05")
        #expect(json["title"]?.string == "May 2020")
        #expect(json["at"]?.string == "2020-07-02T00:00:00Z")
        #expect(json["readable"]?.bool == false)
        #expect(
            json["explanation"]?.string
                == "May 2020 (2020-05), published 2020-05-01, cannot be read as of 2020-07-02 UTC: published during a lapse "
                + "(2020-04-20 12:00 → 2020-06-17 12:00). The subscription lapsed on 2020-04-20 12:00 and the resubscription on "
                + "2020-06-17 12:00 (transaction 1000003, com.example.monthly) unlocked only the latest issue published by then, June 2020, not May 2020.")
    }

    @Test func explanation_ofAReadableIssue_namesWhatGivesIt() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let json = try #require(Self.explanation(harness, "2020-06", at: "2020-07-02T00:00:00Z").json)
        #expect(json["readable"]?.bool == true)
        #expect(
            json["explanation"]?.string
                == "June 2020 (2020-06), published 2020-06-01, can be read as of 2020-07-02 UTC: unlocked when period #1 started "
                + "(2020-06-17 12:00). The resubscription on 2020-06-17 12:00 (transaction 1000003, com.example.monthly) unlocked "
                + "the latest issue published by then, June 2020. Archive access keeps it, also after the subscription ends.")
        // As of an earlier instant, the same issue is explained as of then.
        let before = try #require(Self.explanation(harness, "2020-06", at: "2020-06-10T00:00:00Z").json)
        #expect(before["readable"]?.bool == false)
        #expect(before["at"]?.string == "2020-06-10T00:00:00Z")
        #expect(before["explanation"]?.string?.contains("cannot be read as of 2020-06-10 UTC: published during a lapse") == true)
    }

    /// Table 6-2 (streaming, a window of 6): in the billing lapse, "since when"; after it, the window.
    @Test func explanation_ofStreaming_saysSinceWhen_andTheWindow() throws {
        let harness = try Self.harness("table-6-2")
        defer { harness.close() }
        let lapsed = try #require(Self.explanation(harness, "2020-03", at: "2020-04-25T00:00:00Z").json)
        #expect(lapsed["readable"]?.bool == false)
        #expect(lapsed["explanation"]?.string?.contains("streaming access is not active (lapsed 2020-04-20 12:00)") == true)
        let active = try #require(Self.explanation(harness, "2020-01", at: "2020-07-02T00:00:00Z").json)
        #expect(active["readable"]?.bool == false)
        #expect(active["explanation"]?.string?.contains("gives only the latest 6 published issues; this one is older.") == true)
    }

    @Test func explanation_refusals() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        func code(_ answer: ServiceHarness.Answer) -> String? { answer.json?["error"]?["code"]?.string }
        let unknownIssue = Self.explanation(harness, "1999-01", at: "2020-07-02T00:00:00Z")
        #expect(unknownIssue.status == 404 && code(unknownIssue) == "unknown_issue")
        let unknownPublication = harness.call("GET", "/v1/users/alice/issues/the-daily/2020-01/explanation", token: "admin-token")
        #expect(unknownPublication.status == 404 && code(unknownPublication) == "unknown_publication")
        let unknownUser = Self.explanation(harness, "2020-05", at: "2020-07-02T00:00:00Z", user: "nobody")
        #expect(unknownUser.status == 404 && code(unknownUser) == "unknown_user")
        let badAt = Self.explanation(harness, "2020-05", at: "yesterday")
        #expect(badAt.status == 400 && code(badAt) == "invalid_at")
        let badEnvironment = harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/explanation?environment=staging", token: "admin-token")
        #expect(badEnvironment.status == 400 && code(badEnvironment) == "invalid_environment")
        // The admin token only: the API token is 403, none 401.
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/explanation").status == 403)
        #expect(harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-05/explanation", token: nil).status == 401)
    }

    /// The picture's answer, with its headers.
    static func timeline(_ harness: ServiceHarness, user: String = "alice", query: String) -> HTTPResponse {
        OpenAPIDocumentTests.respond(harness, "GET", "/v1/users/\(user)/timeline.svg?\(query)", token: "admin-token")
    }

    @Test func timeline_isAnSVGDocument_onePanelPerPublication_withTheAsOfInstant() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let response = Self.timeline(harness, query: "at=2020-07-02T00:00:00Z")
        #expect(response.status == 200)
        #expect(response.headers.first { $0.name == "Content-Type" }?.value == "image/svg+xml; charset=utf-8")
        #expect(response.headers.first { $0.name == "X-Content-Type-Options" }?.value == "nosniff")
        let elements = try SVGElements.read(response.body)
        #expect(elements.first?.name == "svg")
        #expect(elements.filter { $0.classes.contains("publication") }.map { $0.attributes["data-publication"] } == ["the-monthly"])
        #expect(elements.first { $0.classes.contains("heading") }?.text == "alice — as of 2020-07-02 00:00 UTC, production")
        #expect(elements.first { $0.classes.contains("as-of") }?.attributes["data-at"] == "2020-07-02T00:00:00Z")
        // The engine's decisions, as the entitlements route gives them.
        let decisions = elements.filter { $0.classes.contains("issue") }.map { "\($0.attributes["data-issue"]!) \($0.classes[1])" }
        #expect(decisions.prefix(8) == [
            "2020-01 denied", "2020-02 readable", "2020-03 readable", "2020-04 readable", "2020-05 denied", "2020-06 readable", "2020-07 readable",
            "2020-08 unpublished",
        ])
        #expect(Self.outsideTheViewBox(elements).isEmpty, "\(Self.outsideTheViewBox(elements))")
        // Only the publication asked for; another is 404.
        let one = try SVGElements.read(Self.timeline(harness, query: "at=2020-07-02T00:00:00Z&publication=the-monthly").body)
        #expect(one.filter { $0.classes.contains("publication") }.count == 1)
        let unknown = Self.timeline(harness, query: "publication=the-daily")
        #expect(unknown.status == 404)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("unknown_publication"))
    }

    /// The as-of line stands where the time axis puts the as-of instant: on the tick of an issue
    /// published at that instant, and at the end of a lapse still running then.
    @Test func timeline_asOfLine_standsAtTheAsOfInstant() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let july = try SVGElements.read(Self.timeline(harness, query: "at=2020-07-01T00:00:00Z").body)
        let issueTick = try #require(Self.first("line", in: july, under: { $0.attributes["data-issue"] == "2020-07" })?.number("x1"))
        let asOfLine = try #require(Self.first("line", in: july, under: { $0.classes.contains("as-of") })?.number("x1"))
        #expect(asOfLine == issueTick)
        let lapsed = try SVGElements.read(Self.timeline(harness, query: "at=2020-05-15T00:00:00Z").body)
        let lapse = try #require(Self.first("rect", in: lapsed, under: { $0.classes.contains("lapse") }))
        let lapseEnd = try #require(lapse.number("x").flatMap { x in lapse.number("width").map { x + $0 } })
        let line = try #require(Self.first("line", in: lapsed, under: { $0.classes.contains("as-of") })?.number("x1"))
        #expect(abs(lapseEnd - line) < 0.11, "the lapse ends at \(lapseEnd), the as-of line is at \(line)")
    }

    /// The first element named `name` inside the first element that `parent` selects.
    static func first(_ name: String, in elements: [SVGElements.Element], under parent: (SVGElements.Element) -> Bool) -> SVGElements.Element? {
        guard let index = elements.firstIndex(where: parent) else { return nil }
        return elements.inside(index).first { $0.name == name }
    }

    /// A user id written as markup is drawn as text: the picture parses, holds no element of it,
    /// and its heading reads the id.
    @Test func timeline_userIdIsText_neverMarkup() throws {
        let id = "<img src=x onerror=alert(1)>"
        let encoded = "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
        let harness = try Self.harness(user: encoded)
        defer { harness.close() }
        let response = Self.timeline(harness, user: encoded, query: "at=2020-07-02T00:00:00Z")
        #expect(response.status == 200)
        let elements = try SVGElements.read(response.body)
        #expect(!elements.contains { $0.name == "img" })
        #expect(!elements.contains { $0.attributes.keys.contains { $0.lowercased().hasPrefix("on") } })
        #expect(elements.first { $0.classes.contains("heading") }?.text == "\(id) — as of 2020-07-02 00:00 UTC, production")
        let json = try #require(Self.explanation(harness, "2020-05", at: "2020-07-02T00:00:00Z", user: encoded).json)
        #expect(json["userId"]?.string == id)
    }

    @Test func timeline_refusals() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        func code(_ response: HTTPResponse) -> String? { (try? JSONDocument(parsing: response.body).root["error"]?["code"]?.string) ?? nil }
        #expect(code(Self.timeline(harness, user: "nobody", query: "")) == "unknown_user")
        #expect(code(Self.timeline(harness, query: "at=yesterday")) == "invalid_at")
        #expect(code(Self.timeline(harness, query: "environment=staging")) == "invalid_environment")
        #expect(OpenAPIDocumentTests.respond(harness, "GET", "/v1/users/alice/timeline.svg", token: "api-token").status == 403)
    }

    /// The drawn elements (and text) that reach outside the picture's view box.
    static func outsideTheViewBox(_ elements: [SVGElements.Element]) -> [String] {
        guard let root = elements.first, let box = root.attributes["viewBox"]?.split(separator: " ").compactMap({ Double($0) }), box.count == 4 else {
            return ["the picture has no view box"]
        }
        let (minX, minY, maxX, maxY) = (box[0], box[1], box[0] + box[2], box[1] + box[3])
        var problems: [String] = []
        for (index, element) in elements.enumerated() where index > 0 {
            var xs = ["x", "x1", "x2", "cx"].compactMap { element.number($0) }
            var ys = ["y", "y1", "y2", "cy"].compactMap { element.number($0) }
            if let x = element.number("x"), let width = element.number("width") { xs.append(x + width) }
            if let y = element.number("y"), let height = element.number("height") { ys.append(y + height) }
            if let r = element.number("r"), let cx = element.number("cx"), let cy = element.number("cy") { xs += [cx - r, cx + r]; ys += [cy - r, cy + r] }
            if xs.contains(where: { $0 < minX || $0 > maxX }) || ys.contains(where: { $0 < minY || $0 > maxY }) {
                problems.append("\(element.name) \(element.attributes)")
            }
        }
        return problems
    }
}
