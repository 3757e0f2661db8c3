import Foundation
import Glibc
import MastheadHTTP
import MastheadJSON
import MastheadTestSupport
import Testing

/// The headless Chromium driver the console's browser test uses, on tiny pages served here under
/// the console's Content Security Policy.
@Suite(.serialized)
struct HeadlessChromiumTests {
    static let policy = "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// `/`: a form echoing its input on submit and a button counting its clicks; `/bad`: an inline
    /// script (blocked by the policy) and a script that logs an error, calls `alert` and throws.
    static let files: [String: (type: String, body: String)] = [
        "/": ("text/html; charset=utf-8", """
            <!doctype html><html><head><title>driver</title><script src="/page.js" defer></script></head>
            <body><form id="echo"><input name="q"><button>Go</button></form><p id="out"></p>
            <button id="counter" data-clicks="0">Count</button></body></html>
            """),
        "/page.js": ("text/javascript; charset=utf-8", """
            document.getElementById('echo').addEventListener('submit', (event) => {
              event.preventDefault();
              document.getElementById('out').textContent = 'got ' + event.target.elements.q.value;
            });
            document.getElementById('counter').addEventListener('click', (event) => {
              event.target.dataset.clicks = String(Number(event.target.dataset.clicks) + 1);
            });
            """),
        "/bad": ("text/html; charset=utf-8", """
            <!doctype html><html><head><title>bad</title><script>window.inline = true;</script>
            <script src="/bad.js"></script></head><body></body></html>
            """),
        "/bad.js": ("text/javascript; charset=utf-8", """
            console.error('boom from bad.js');
            window.alert('alerted');
            setTimeout(() => { window.thrown = true; throw new Error('uncaught in bad.js'); }, 0);
            """),
    ]

    static func serve() throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = try HTTPServer(configuration: configuration) { request, responder in
            guard let file = files["/" + request.pathSegments.joined(separator: "/")] else {
                responder.send(HTTPResponse(status: 404))
                return
            }
            responder.send(HTTPResponse(status: 200, headers: [("Content-Type", file.type), ("Content-Security-Policy", policy)], body: Array(file.body.utf8)))
        }
        try server.start()
        return server
    }

    static func stop(_ server: HTTPServer) {
        server.stop(gracePeriodMilliseconds: 1000)
        server.waitUntilStopped()
    }

    @Test(.enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
    func navigateFillSubmitClickAndRead_onAPageUnderThePolicy_withoutProblems() throws {
        let server = try Self.serve()
        defer { Self.stop(server) }
        let browser = try TestChromium.launch()
        defer { browser.close() }
        try browser.navigate("http://127.0.0.1:\(server.port)/")
        #expect(try browser.evaluate("document.title")?.string == "driver")
        #expect(try browser.evaluate("Promise.resolve(6 * 7)")?.int64 == 42)
        try browser.fill("#echo [name=q]", "a \"quoted\" <b>text</b>")
        try browser.submit("#echo")
        try browser.waitFor("document.getElementById('out').textContent !== ''")
        #expect(try browser.text("#out") == "got a \"quoted\" <b>text</b>")
        try browser.click("#counter")
        try browser.click("#counter")
        #expect(try browser.attribute("#counter", "data-clicks") == "2")
        #expect(try browser.count("button") == 2)
        #expect(browser.problems.isEmpty, "\(browser.problems)")
    }

    @Test(.enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
    func missingElement_failedScript_andUnmetCondition_areErrorsNamingThem() throws {
        let browser = try TestChromium.launch()
        defer { browser.close() }
        do {
            try browser.click("#nowhere")
            Issue.record("clicking what is not there must fail")
        } catch {
            #expect("\(error)" == "no element matches #nowhere")
        }
        do {
            try browser.evaluate("null.property")
            Issue.record("a script that throws must fail")
        } catch {
            #expect("\(error)".contains("TypeError"))
        }
        do {
            try browser.waitFor("window.neverSet === true", timeout: .milliseconds(300))
            Issue.record("an unmet condition must time out")
        } catch {
            #expect("\(error)" == "timed out waiting for `window.neverSet === true`")
        }
    }

    @Test(.enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
    func consoleErrors_uncaughtExceptions_andPolicyViolations_areCollected() throws {
        let server = try Self.serve()
        defer { Self.stop(server) }
        let browser = try TestChromium.launch()
        defer { browser.close() }
        // Added by the driver, so it runs although the policy forbids inline scripts.
        try browser.addScriptOnNewDocument("window.alerts = []; window.alert = (message) => { window.alerts.push(String(message)); };")
        try browser.navigate("http://127.0.0.1:\(server.port)/bad")
        try browser.waitFor("window.thrown === true")
        #expect(try browser.evaluate("window.alerts.join()")?.string == "alerted")
        #expect(try browser.evaluate("window.inline === undefined")?.bool == true)
        let problems = browser.problems
        #expect(!problems.isEmpty)
        #expect(problems.consoleErrors.contains { $0.contains("boom from bad.js") }, "\(problems)")
        #expect(problems.exceptions.contains { $0.contains("uncaught in bad.js") }, "\(problems)")
        #expect(problems.securityViolations.contains { $0.contains("inline script") }, "\(problems)")
    }

    @Test(.enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
    func screenshot_isAPNGOfTheWindowsWidth_inTheScreenshotsFolder() throws {
        let server = try Self.serve()
        defer { Self.stop(server) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-screenshots-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let browser = try HeadlessChromium.launch(binary: TestChromium.binary, screenshots: folder)
        defer { browser.close() }
        try browser.navigate("http://127.0.0.1:\(server.port)/")
        let file = try browser.screenshot("driver-page")
        #expect(file == folder.appendingPathComponent("driver-page.png"))
        let png = [UInt8](try Data(contentsOf: file))
        try #require(png.count > 24)
        #expect(Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR: the width, big-endian, at bytes 16–19.
        #expect(png[16..<20].reduce(0) { $0 << 8 | Int($1) } == 1280)
    }

    @Test(.enabled(if: !TestChromium.isSkipped, "MASTHEAD_SKIP_BROWSER=1"))
    func close_endsTheBrowser_andRemovesItsProfile() throws {
        let browser = try TestChromium.launch()
        let folder = browser.folder
        #expect(FileManager.default.fileExists(atPath: folder + "/profile"))
        browser.close()
        #expect(kill(browser.processId, 0) == -1 && errno == ESRCH)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func missingChromium_failsSayingHowToInstallIt() throws {
        do {
            _ = try HeadlessChromium.launch(binary: "/nonexistent/chromium", screenshots: FileManager.default.temporaryDirectory)
            Issue.record("launching a missing binary must fail")
        } catch {
            #expect("\(error)".contains("apt-get install chromium"))
            #expect("\(error)".contains("MASTHEAD_SKIP_BROWSER=1"))
        }
    }

    @Test func pipe_refusesAMessageOverItsLimit_andReadsOnesUnderIt() throws {
        var descriptors: [Int32] = [-1, -1]
        try #require(pipe(&descriptors) == 0)
        let limited = DevToolsPipe(toBrowser: descriptors[1], fromBrowser: descriptors[0], maxMessageBytes: 1024)
        try limited.send(Array(#"{"id":1,"result":{}}"#.utf8))
        let message = try #require(try limited.receive(before: .now + .seconds(30)))
        #expect(message.root["id"]?.int64 == 1)
        // 2 KiB without the NUL that would end a message.
        let unended = [UInt8](repeating: UInt8(ascii: " "), count: 2048)
        #expect(unended.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) } == 2048)
        #expect(throws: BrowserError.self) { try limited.receive(before: .now + .seconds(30)) }
    }
}
