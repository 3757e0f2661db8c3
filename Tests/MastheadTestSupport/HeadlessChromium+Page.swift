public import Foundation
public import MastheadJSON

/// What a test does with the page: load it, run scripts, wait for conditions, fill and submit
/// forms, click, read the DOM, take screenshots.
extension HeadlessChromium {
    /// Loads `url` and waits for its load event.
    public func navigate(_ url: String, timeout: Duration = .seconds(60)) throws(BrowserError) {
        let loadsBefore = loadCount
        let answer = try command("Page.navigate") { $0.field("url", url) }
        if let failure = answer["errorText"]?.string { throw .commandFailed(method: "Page.navigate \(url)", message: failure) }
        try pumpEvents(until: { loadCount > loadsBefore }, before: .now + timeout, awaiting: "the load of \(url)")
    }

    /// Runs `source` in every document the page loads from now on, before the document's own
    /// scripts (whatever the page's CSP says).
    public func addScriptOnNewDocument(_ source: String) throws(BrowserError) {
        try command("Page.addScriptToEvaluateOnNewDocument") { $0.field("source", source) }
    }

    /// Evaluates `expression` in the page, awaiting it if it is a promise; answers its value as
    /// JSON (nil for `undefined`). A thrown exception is thrown as `scriptFailed`.
    @discardableResult
    public func evaluate(_ expression: String) throws(BrowserError) -> JSONValue? {
        let answer = try command("Runtime.evaluate") {
            $0.field("expression", expression)
            $0.field("returnByValue", true)
            $0.field("awaitPromise", true)
        }
        if let details = answer["exceptionDetails"] {
            let exception = details["exception"]?["description"]?.string ?? details["text"]?.string ?? "an exception"
            throw .scriptFailed(script: String(expression.prefix(while: { $0 != "\n" })), exception: exception)
        }
        return answer["result"]?["value"]
    }

    /// Polls `condition` (a script expression) until it is truthy; throws `timedOut` naming it
    /// (and the last exception it threw, if any) after `timeout`.
    public func waitFor(_ condition: String, timeout: Duration = .seconds(30)) throws(BrowserError) {
        let deadline = ContinuousClock.now + timeout
        var lastFailure = ""
        while true {
            do {
                if try evaluate("Boolean(\(condition))")?.bool == true { return }
                lastFailure = ""
            } catch {
                // A condition reading what is not there yet, or a page between two documents.
                switch error {
                case .scriptFailed(_, let exception): lastFailure = exception
                case .commandFailed(_, let message): lastFailure = message
                default: throw error
                }
            }
            guard ContinuousClock.now < deadline else {
                throw .timedOut("`\(condition)`" + (lastFailure.isEmpty ? "" : " (last: \(lastFailure))"))
            }
            usleep(50_000)
        }
    }

    /// Waits for an element matching `selector` to exist.
    public func waitFor(selector: String, timeout: Duration = .seconds(30)) throws(BrowserError) {
        try waitFor("document.querySelector(\(javaScriptString(selector)))", timeout: timeout)
    }

    /// Sets the value of the input, select or text area matching `selector` as typing would
    /// (firing `input` and `change`).
    public func fill(_ selector: String, _ value: String) throws(BrowserError) {
        try onElement(selector, """
            element.value = \(javaScriptString(value));
            element.dispatchEvent(new Event('input', {bubbles: true}));
            element.dispatchEvent(new Event('change', {bubbles: true}));
            """)
    }

    /// Submits the form matching `selector` as its submit button would (`requestSubmit()`:
    /// validation and the submit event included).
    public func submit(_ selector: String) throws(BrowserError) {
        try onElement(selector, "element.requestSubmit();")
    }

    /// Clicks the element matching `selector`.
    public func click(_ selector: String) throws(BrowserError) {
        try onElement(selector, "element.click();")
    }

    /// The text of the first element matching `selector` (nil when none does).
    public func text(_ selector: String) throws(BrowserError) -> String? {
        try evaluate("document.querySelector(\(javaScriptString(selector)))?.textContent ?? null")?.string
    }

    /// An attribute of the first element matching `selector` (nil when absent or no element).
    public func attribute(_ selector: String, _ name: String) throws(BrowserError) -> String? {
        try evaluate("document.querySelector(\(javaScriptString(selector)))?.getAttribute(\(javaScriptString(name))) ?? null")?.string
    }

    /// How many elements match `selector`.
    public func count(_ selector: String) throws(BrowserError) -> Int {
        Int(try evaluate("document.querySelectorAll(\(javaScriptString(selector))).length")?.int64 ?? 0)
    }

    /// Captures the whole page as a PNG named `name` + `.png` in ``screenshots``; answers its file.
    @discardableResult
    public func screenshot(_ name: String) throws -> URL {
        let metrics = try command("Page.getLayoutMetrics")
        let size = metrics["cssContentSize"]
        // Bounded: the page is at least the window and at most a few windows tall.
        let width = Int64(min(max(size?["width"]?.double ?? 1280, 1280), 4000).rounded(.up))
        let height = Int64(min(max(size?["height"]?.double ?? 900, 900), 10_000).rounded(.up))
        let answer = try command("Page.captureScreenshot") {
            $0.field("format", "png")
            $0.field("captureBeyondViewport", true)
            $0.key("clip")
            $0.beginObject()
            $0.field("x", 0)
            $0.field("y", 0)
            $0.field("width", width)
            $0.field("height", height)
            $0.field("scale", 1)
            $0.endObject()
        }
        guard let encoded = answer["data"]?.string, let png = Data(base64Encoded: encoded) else {
            throw BrowserError.malformedMessage("Page.captureScreenshot answered no base64 data")
        }
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let file = screenshots.appendingPathComponent(name + ".png")
        try png.write(to: file, options: .atomic)
        return file
    }

    /// Runs `body` with `element` bound to the element matching `selector`; throws `noElement`
    /// when none does.
    private func onElement(_ selector: String, _ body: String) throws(BrowserError) {
        let found = try evaluate("""
            (() => {
            const element = document.querySelector(\(javaScriptString(selector)));
            if (!element) return false;
            \(body)
            return true;
            })()
            """)
        guard found?.bool == true else { throw .noElement(selector) }
    }
}

/// `text` as a JavaScript string literal (a JSON string is one).
public func javaScriptString(_ text: String) -> String {
    var writer = JSONWriter()
    writer.string(text)
    return writer.text
}
