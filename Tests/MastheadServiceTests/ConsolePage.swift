import Foundation
import MastheadJSON
import MastheadTestSupport
import Testing

/// The support console's page as its browser test drives it: the steps made of its public hooks
/// (see the console's article), and the comparison of what it shows with the API's answer.
struct ConsolePage {
    let browser: HeadlessChromium

    /// The reader view, in a script.
    static let reader = #"document.querySelector('[data-role="reader"]')"#

    /// An issue's element in a publication's section (not the explanation, which has `data-issue` too).
    static func issueSelector(publication: String, issue: String) -> String {
        #"section[data-publication="\#(publication)"] [data-issue="\#(issue)"][data-readable]"#
    }

    /// An instant for a query string (a `+` offset would otherwise read as a space).
    static func query(_ instant: String) -> String {
        instant.replacingOccurrences(of: "+", with: "%2B")
    }

    /// Searches `text` and waits until its reader is loaded.
    func find(_ text: String) throws {
        try browser.fill(#"#find [name="q"]"#, text)
        try browser.submit("#find")
        try browser.waitFor("\(Self.reader)?.dataset.userId === \(javaScriptString(text)) && \(Self.reader).dataset.at")
    }

    /// Clicks an issue (its own button, or the button inside it).
    func clickIssue(publication: String, issue: String) throws {
        let selector = Self.issueSelector(publication: publication, issue: issue)
        let clicked = try browser.evaluate("""
            (() => {
            const element = document.querySelector(\(javaScriptString(selector)));
            if (!element) return false;
            (element.matches('button') ? element : element.querySelector('button') ?? element).click();
            return true;
            })()
            """)
        guard clicked?.bool == true else { throw BrowserError.noElement(selector) }
    }

    /// Sets the as-of instant (`local`: a UTC `datetime-local` value with seconds), submits it,
    /// and waits for the reader loaded at that instant.
    func setAsOf(_ local: String) throws {
        try browser.fill(#"#as-of [name="at"]"#, local)
        try browser.submit("#as-of")
        try browser.waitFor("Date.parse(\(Self.reader)?.dataset.at) === Date.parse(\(javaScriptString(local + "Z")))")
    }

    /// Fills an instant field given as a UTC `datetime-local` value, in the form its input takes
    /// (a date, a `datetime-local` value, or RFC 3339 text).
    func fillInstant(_ selector: String, _ local: String) throws {
        let type = try browser.evaluate("document.querySelector(\(javaScriptString(selector)))?.type ?? null")?.string
        switch type {
        case "date": try browser.fill(selector, String(local.prefix(10)))
        case "datetime-local": try browser.fill(selector, local)
        default: try browser.fill(selector, local + "Z")
        }
    }

    /// Chooses `value` for the field `name` of `form`: a select's option, one of several radio
    /// buttons, or a text input's value.
    func choose(form: String, name: String, value: String) throws {
        let chosen = try browser.evaluate("""
            (() => {
            const fields = [...document.querySelectorAll(\(javaScriptString("\(form) [name=\"\(name)\"]")))];
            const field = fields.find((one) => one.type !== 'radio') ?? fields.find((one) => one.value === \(javaScriptString(value)));
            if (!field) return false;
            if (field.type === 'radio') field.checked = true; else field.value = \(javaScriptString(value));
            field.dispatchEvent(new Event('input', {bubbles: true}));
            field.dispatchEvent(new Event('change', {bubbles: true}));
            return field.type === 'radio' || field.value === \(javaScriptString(value));
            })()
            """)
        guard chosen?.bool == true else { throw BrowserError.noElement("\(form) [name=\"\(name)\"] with \(value)") }
    }

    /// Confirms the action the in-page dialog asks about, and waits for the dialog to close.
    func confirm() throws {
        let dialog = #"document.querySelector('dialog[data-role="confirm"]')"#
        try browser.waitFor("\(dialog)?.open")
        try browser.click(#"dialog[data-role="confirm"] [data-action="confirm"]"#)
        try browser.waitFor("!\(dialog).open")
    }

    /// Each publication's status and every issue's readability shown are the entitlements route's
    /// answer for `user` at `at`.
    func expectAnswersMatch(_ harness: ServiceHarness, user: String, at: String) throws {
        let answer = try ConsoleBrowserTests.api(harness, "/v1/users/\(ConsoleBrowserTests.percentEncoded(user))/entitlements?at=\(Self.query(at))")
        for publication in answer["publications"]?.elements.map({ $0 }) ?? [] {
            let id = try #require(publication["publication"]?.string)
            let section = #"section[data-publication="\#(id)"]"#
            #expect(try browser.text("\(section) [data-field=\"status\"]")?.trimmingCharacters(in: .whitespacesAndNewlines) == publication["status"]?["state"]?.string,
                    "\(id)'s status at \(at)")
            let expected = (publication["issues"]?.elements.map { "\($0["id"]?.string ?? "?")=\($0["readable"]?.bool == true)" } ?? []).sorted()
            let shown = try browser.evaluate("""
                [...document.querySelectorAll(\(javaScriptString("\(section) [data-issue][data-readable]")))]
                  .map((issue) => issue.dataset.issue + '=' + issue.dataset.readable)
                """)
            #expect((shown?.elements.map { $0.string ?? "?" } ?? []).sorted() == expected, "\(id)'s issues at \(at)")
        }
    }
}
