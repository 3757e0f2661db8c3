import Foundation
import MastheadJSON
import MastheadService
import MastheadTestSupport
import Testing

/// The support console driven in headless Chromium against a live service on port 0, through the
/// page's public hooks only (ids, `name`s, `data-role`, `data-action`, `data-*` values), every
/// answer compared with what the API says at the same instant. Screenshots of each step go to
/// ``TestChromium/screenshots``.
@Suite(.serialized, .enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
struct ConsoleBrowserTests {
    static let admin = "admin-token"
    /// A user id that is markup: the page must show it as text.
    static let markupUser = "<img src=x onerror=alert(1)>"
    /// The instant the service's clock reads while the page is driven.
    static let now = "2020-07-02T00:00:00Z"

    /// The service with three readers (alice: Table 6-1, bob: Table 6-2, the markup user: a
    /// refund) and one rejected notification.
    static func seeded() throws -> ServiceHarness {
        let harness = try ServiceHarness(now: now)
        for (user, receipt) in [("alice", "table-6-1"), ("bob", "table-6-2"), (markupUser, "refund")] {
            let answer = harness.call("POST", "/v1/users/\(percentEncoded(user))/receipts", body: try ServiceHarness.example(receipt))
            try #require(answer.status == 200, "\(user): \(answer.body)")
        }
        _ = try RejectedNotificationRouteTests.reject(harness, reason: "$.signedPayload: not a compact JWS", body: Array(#"{"signedPayload":"x"}"#.utf8))
        return harness
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// The API's answer with the admin token, as JSON.
    static func api(_ harness: ServiceHarness, _ target: String) throws -> JSONValue {
        let answer = harness.call("GET", target, token: admin)
        try #require(answer.status == 200, "GET \(target): \(answer.status) \(answer.body)")
        return try #require(answer.json)
    }

    @Test func supportAgent_signsIn_findsAReader_asksWhy_movesTheInstant_grantsAndRevokes_andIdsStayText() throws {
        let harness = try Self.seeded()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let browser = try TestChromium.launch()
        defer { browser.close() }
        // Runs before the page's own scripts, whatever its policy: every alert is recorded, none shown.
        try browser.addScriptOnNewDocument("window.alerts = []; window.alert = (message) => { window.alerts.push(String(message)); };")
        let page = ConsolePage(browser: browser)

        do {
            try signedOut(page, port: server.port)
            try signIn(page)
            let firstInstant = try findAlice(page, harness)
            try explainMarch(page, harness, at: firstInstant)
            try moveTheInstant(page, harness)
            try grantAndRevoke(page, harness)
            try markupUserIsText(page)
            try operations(page)
            try signOut(page)
        } catch {
            // What the page showed when a step could not go on.
            _ = try? browser.screenshot("console-failed")
            throw error
        }
        #expect(try browser.evaluate("window.alerts.length")?.int64 == 0)
        #expect(browser.problems.isEmpty, "\(browser.problems)")
    }

    /// A user id nobody matched is opened anyway as a reader not seen yet and given a streaming
    /// grant with a window through the form; Edit fills the form with the window, and saving it
    /// unchanged keeps it.
    @Test func supportAgent_opensANewReaderAnyway_andCorrectsAStreamingGrantKeepingItsWindow() throws {
        let harness = try Self.seeded()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let browser = try TestChromium.launch()
        defer { browser.close() }
        let page = ConsolePage(browser: browser)
        do {
            try browser.navigate("http://127.0.0.1:\(server.port)/console")
            try browser.waitFor(#"!document.querySelector('#sign-in button[type="submit"]').disabled"#)
            try signIn(page)
            try page.find("alice")

            try browser.fill(#"#find [name="q"]"#, "  carol  ")
            try browser.submit("#find")
            try browser.waitFor(#"document.querySelector('[data-action="open-anyway"]')"#)
            #expect(try browser.text(#"[data-action="open-anyway"]"#) == "Open carol anyway")
            try browser.click(#"[data-action="open-anyway"]"#)
            try browser.waitFor(#"document.querySelector('[data-role="reader"]').dataset.userId === 'carol' && document.querySelector('[data-role="not-seen"]')"#)
            try browser.screenshot("console-new-reader")

            try browser.fill(#"#grant [name="grantId"]"#, "carol-streaming")
            try browser.fill(#"#grant [name="source"]"#, "comp")
            try page.choose(form: "#grant", name: "scope", value: "span")
            try page.choose(form: "#grant", name: "publication", value: "the-monthly")
            try page.choose(form: "#grant", name: "access", value: "streaming")
            try browser.fill(#"#grant [name="window"]"#, "2")
            try browser.fill(#"#grant [name="start"]"#, "2020-01-01")
            try browser.submit("#grant")
            try page.confirm()
            try browser.waitFor(#"document.querySelector('[data-role="notice"]')?.textContent.includes('given') && document.querySelector('[data-role="reader"]').dataset.at"#)
            let given = try Self.api(harness, "/v1/users/carol/grants")
            #expect(given["grants"]?.elements.first { $0["grantId"]?.string == "carol-streaming" }?["window"]?.int64 == 2)

            try browser.click(#"[data-action="edit-grant"][data-grant-id="carol-streaming"]"#)
            #expect(try browser.evaluate(#"document.querySelector('#grant [name="window"]').value"#)?.string == "2")
            try browser.submit("#grant")
            try page.confirm()
            try browser.waitFor(#"document.querySelector('[data-role="notice"]')?.textContent.includes('corrected') && document.querySelector('[data-role="reader"]').dataset.at"#)
            let corrected = try Self.api(harness, "/v1/users/carol/grants")
            #expect(corrected["grants"]?.elements.first { $0["grantId"]?.string == "carol-streaming" }?["window"]?.int64 == 2)
        } catch {
            _ = try? browser.screenshot("console-new-reader-failed")
            throw error
        }
        #expect(browser.problems.isEmpty, "\(browser.problems)")
    }

    /// The page loads without a token, its API calls without one are 401, and a wrong token is
    /// refused with a message.
    private func signedOut(_ page: ConsolePage, port: UInt16) throws {
        try page.browser.navigate("http://127.0.0.1:\(port)/console")
        try page.browser.waitFor("document.body.dataset.signedIn === 'false'")
        #expect(try page.browser.count(#"#sign-in input[type="password"][name="token"]"#) == 1)
        for target in ["/v1/lookup?q=alice", "/v1/users/alice/entitlements", "/v1/users/alice/evidence"] {
            let status = try page.browser.evaluate("fetch(\(javaScriptString(target))).then((answer) => answer.status)")?.int64
            #expect(status == 401, "\(target) without a token")
        }
        try page.browser.screenshot("console-1-signed-out")
        try page.browser.fill(#"#sign-in [name="token"]"#, "not-the-admin-token")
        try page.browser.submit("#sign-in")
        try page.browser.waitFor(#"document.querySelector('[data-role="sign-in-error"]')?.textContent.trim()"#)
        #expect(try page.browser.attribute("body", "data-signed-in") == "false")
    }

    private func signIn(_ page: ConsolePage) throws {
        try page.browser.fill(#"#sign-in [name="token"]"#, Self.admin)
        try page.browser.submit("#sign-in")
        try page.browser.waitFor("document.body.dataset.signedIn === 'true'")
        #expect(try page.browser.evaluate("sessionStorage.getItem('masthead-admin-token')")?.string == Self.admin)
        #expect(try page.browser.evaluate("document.cookie")?.string == "")
        #expect(try page.browser.evaluate("location.href.includes(\(javaScriptString(Self.admin)))")?.bool == false)
    }

    /// Finds alice; her statuses, issues and evidence are the API's at the instant the page shows.
    /// Answers that instant.
    private func findAlice(_ page: ConsolePage, _ harness: ServiceHarness) throws -> String {
        try page.browser.fill(#"#find [name="q"]"#, "nobody-of-that-name")
        try page.browser.submit("#find")
        try page.browser.waitFor(#"document.querySelector('[data-role="matches"]').textContent.includes('No reader found')"#)
        try page.find("alice")
        #expect(try page.browser.text(#"[data-role="reader-id"]"#) == "alice")
        let at = try #require(try page.browser.attribute(#"[data-role="reader"]"#, "data-at"))
        try page.expectAnswersMatch(harness, user: "alice", at: at)
        let evidence = try Self.api(harness, "/v1/users/alice/evidence")
        let transactions = try #require(try page.browser.text(#"[data-role="evidence"] [data-evidence="transactions"]"#))
        let ids = evidence["transactions"]?.elements.map { $0["transactionId"]?.string ?? "?" } ?? []
        #expect(!ids.isEmpty)
        for id in ids {
            #expect(transactions.contains(id), "transaction \(id) in the evidence table")
        }
        try page.browser.screenshot("console-2-reader")
        return at
    }

    /// The issue published in March 2020, clicked, is explained as the explanation route says.
    private func explainMarch(_ page: ConsolePage, _ harness: ServiceHarness, at: String) throws {
        let issues = try Self.api(harness, "/v1/publications/the-monthly/issues")
        let march = try #require(
            (issues["issues"]?.elements.map { $0 } ?? []).first { $0["published"]?.string?.hasPrefix("2020-03") == true }?["id"]?.string)
        try page.clickIssue(publication: "the-monthly", issue: march)
        let explanation = #"document.querySelector('[data-role="explanation"]')"#
        try page.browser.waitFor("\(explanation)?.dataset.issue === \(javaScriptString(march))")
        let shown = try #require(try page.browser.text(#"[data-role="explanation"]"#))
        let answer = try Self.api(harness, "/v1/users/alice/issues/the-monthly/\(march)/explanation?at=\(ConsolePage.query(at))")
        let paragraph = try #require(answer["explanation"]?.string)
        #expect(shown.contains(paragraph), "the page shows \(shown)")
        #expect(paragraph.contains(try #require(answer["title"]?.string)), "the paragraph names the issue")
        try page.browser.screenshot("console-3-explanation")
    }

    /// As of a day in alice's lapse, the page's statuses and issues are the API's at that instant.
    private func moveTheInstant(_ page: ConsolePage, _ harness: ServiceHarness) throws {
        try page.setAsOf("2020-05-10T00:00:00")
        try page.expectAnswersMatch(harness, user: "alice", at: "2020-05-10T00:00:00Z")
        try page.browser.screenshot("console-4-as-of")
    }

    /// A make-good grant of an issue alice may not read, given through the form, makes it
    /// readable; revoked, it is not any more.
    private func grantAndRevoke(_ page: ConsolePage, _ harness: ServiceHarness) throws {
        try page.setAsOf("2020-07-02T00:00:00")
        let at = "2020-07-02T00:00:00Z"
        let answer = try Self.api(harness, "/v1/users/alice/entitlements?at=\(at)")
        let publication = try #require(answer["publications"]?.elements.first { $0["publication"]?.string == "the-monthly" })
        let denied = try #require(
            (publication["issues"]?.elements.map { $0 } ?? []).first { $0["readable"]?.bool == false && $0["published"]?.string.map { $0 < at } == true }?["id"]?
                .string)
        try page.browser.fill(#"#grant [name="grantId"]"#, "console-make-good")
        try page.choose(form: "#grant", name: "publication", value: "the-monthly")
        try page.choose(form: "#grant", name: "scope", value: "issues")
        try page.browser.fill(#"#grant [name="issues"]"#, denied)
        try page.fillInstant(#"#grant [name="start"]"#, "2020-01-01T00:00:00")
        try page.browser.fill(#"#grant [name="source"]"#, "makeGood")
        try page.browser.submit("#grant")
        try page.confirm()
        let issue = ConsolePage.issueSelector(publication: "the-monthly", issue: denied)
        try page.browser.waitFor("document.querySelector(\(javaScriptString(issue)))?.dataset.readable === 'true'")
        try page.browser.waitFor(#"document.querySelector('[data-role="notice"]')?.textContent.trim()"#)
        let grants = try Self.api(harness, "/v1/users/alice/grants")
        let stored = try #require(grants["grants"]?.elements.first { $0["grantId"]?.string == "console-make-good" })
        #expect(stored["issues"]?.elements.map { $0.string } == [denied])
        try page.expectAnswersMatch(harness, user: "alice", at: at)
        try page.browser.screenshot("console-5-grant")

        // Revoked a day before the instant shown, so that the page's answer no longer has it.
        harness.setNow("2020-07-01T00:00:00Z")
        try page.browser.click(#"[data-action="revoke-grant"][data-grant-id="console-make-good"]"#)
        try page.confirm()
        try page.browser.waitFor("document.querySelector(\(javaScriptString(issue)))?.dataset.readable === 'false'")
        let revoked = try Self.api(harness, "/v1/users/alice/grants")
        #expect(revoked["grants"]?.elements.first { $0["grantId"]?.string == "console-make-good" }?["revokedAt"]?.string == "2020-07-01T00:00:00Z")
        try page.expectAnswersMatch(harness, user: "alice", at: at)
    }

    /// A user id that is markup is found, shown as text, and never becomes an element.
    private func markupUserIsText(_ page: ConsolePage) throws {
        try page.find(Self.markupUser)
        #expect(try page.browser.text(#"[data-role="reader-id"]"#) == Self.markupUser)
        #expect(try page.browser.count(#"img[src="x"]"#) == 0)
        #expect(try page.browser.evaluate("[...document.images].some((image) => image.getAttribute('src') === 'x' || image.src.endsWith('/x'))")?.bool == false)
        #expect(try page.browser.evaluate("window.alerts.length")?.int64 == 0)
        try page.browser.screenshot("console-6-xss")
    }

    /// Signing out forgets the token.
    private func signOut(_ page: ConsolePage) throws {
        try page.browser.click(#"[data-action="sign-out"]"#)
        try page.browser.waitFor("document.body.dataset.signedIn === 'false'")
        #expect(try page.browser.evaluate("sessionStorage.getItem('masthead-admin-token')")?.isNull == true)
    }

    /// Operations (a view of its own): health, metrics and the rejected notification with its reason.
    private func operations(_ page: ConsolePage) throws {
        try page.browser.click(#"[data-action="show-operations"]"#)
        try page.browser.waitFor(#"!document.querySelector('[data-role="operations"]').hidden"#)
        try page.browser.waitFor(#"document.querySelector('[data-role="health"]')?.textContent.trim()"#)
        try page.browser.waitFor(#"document.querySelector('[data-role="metrics"]')?.textContent.trim()"#)
        try page.browser.waitFor(#"document.querySelector('[data-role="rejected"]')?.textContent.includes('not a compact JWS')"#)
        try page.browser.screenshot("console-7-operations")
    }
}
