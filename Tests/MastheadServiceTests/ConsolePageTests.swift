import Foundation
import MastheadJSON
@testable import MastheadService
import Testing

/// The support console's page as written: nothing inline for the Content-Security-Policy to
/// refuse, the hooks its browser tests drive, only documented API paths called, and data never
/// inserted as markup.
struct ConsolePageTests {
    static func html() throws -> String { try ConsoleRouteTests.source("console.html") }
    static func script() throws -> String { try ConsoleRouteTests.source("console.js") }

    /// Each tag of the HTML, from `<` to `>`, lowercased (the page holds no `>` inside an attribute).
    static func tags(_ html: String) -> [String] {
        html.lowercased().matches(of: /<[a-z!\/][^>]*>/).map { String($0.output) }
    }

    /// The HTML from a form's opening tag to its `</form>`, or nil when there is no such form.
    static func form(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "<form id=\"\(id)\""), let end = html.range(of: "</form>", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.lowerBound..<end.upperBound])
    }

    @Test func html_hasNoInlineScriptOrStyle() throws {
        let tags = Self.tags(try Self.html())
        #expect(tags.count > 50)
        let scripts = tags.filter { $0.hasPrefix("<script") }
        #expect(scripts == [#"<script src="/console/console.js" defer>"#], "every script comes from the console's own file")
        #expect(!tags.contains { $0.hasPrefix("<style") }, "no <style> element")
        for tag in tags {
            #expect(tag.firstMatch(of: /\sstyle\s*=/) == nil, "a style attribute: \(tag)")
            #expect(tag.firstMatch(of: /\son[a-z]+\s*=/) == nil, "an event handler attribute: \(tag)")
            #expect(tag.firstMatch(of: /javascript:/) == nil, "a javascript: URL: \(tag)")
        }
        let links = tags.filter { $0.hasPrefix("<link") }
        #expect(links == [#"<link rel="stylesheet" href="/console/console.css">"#])
    }

    /// The public names: a password input named `token` in the sign-in form, a search input named
    /// `q` in the find form; and the other hooks of the page's contract.
    @Test func html_holdsTheSignInAndFindForms_andThePagesHooks() throws {
        let html = try Self.html()
        let signIn = try #require(Self.form("sign-in", in: html))
        #expect(signIn.contains(#"<input type="password" name="token""#))
        #expect(signIn.contains(#"type="submit""#))
        #expect(signIn.contains(#"data-role="sign-in-error""#))
        let find = try #require(Self.form("find", in: html))
        #expect(find.contains(#"<input type="search" name="q""#))
        let asOf = try #require(Self.form("as-of", in: html))
        #expect(asOf.contains(#"<input type="datetime-local" name="at" step="1">"#))
        #expect(asOf.contains(#"data-action="now""#))
        #expect(asOf.contains("UTC"))
        let grant = try #require(Self.form("grant", in: html))
        for name in ["grantId", "publication", "scope", "issues", "start", "end", "source"] {
            #expect(grant.contains(#"name="\#(name)""#), "the grant form has no \(name)")
        }
        #expect(grant.contains(#"<select name="publication""#))
        #expect(grant.contains(#"<option value="span">"#) && grant.contains(#"<option value="issues">"#))
        let restore = try #require(Self.form("restore", in: html))
        #expect(restore.contains(#"name="transactionId""#))
        #expect(html.contains(#"<body data-signed-in="false">"#))
        #expect(html.contains(#"data-role="error" role="alert""#))
        #expect(html.contains(#"<dialog class="confirm" data-role="confirm""#))
        for hook in [
            #"data-action="sign-out""#, #"data-role="matches""#, #"data-role="reader""#, #"data-role="reader-id""#, #"data-role="explanation""#,
            #"data-role="evidence""#, #"data-role="notice""#, #"data-role="operations""#, #"data-role="health""#, #"data-role="metrics""#,
            #"data-role="rejected""#, #"data-action="confirm""#, #"data-action="cancel""#,
        ] {
            #expect(html.contains(hook), "no \(hook) in the page")
        }
        for table in ["transactions", "renewals", "notifications", "grants", "app-account-tokens"] {
            #expect(html.contains(#"<table data-evidence="\#(table)">"#), "no evidence table \(table)")
        }
        // The hooks the script makes per publication, issue and grant.
        let script = try Self.script()
        for hook in [#""data-publication""#, #""data-field": "status""#, #""data-role": "timeline""#, #""data-issue""#, #""data-readable""#,
            #""data-action": "revoke-grant""#, #""data-grant-id""#, #""masthead-admin-token""#] {
            #expect(script.contains(hook), "no \(hook) in the script")
        }
    }

    /// The API paths the script calls, as it writes them: `"/v1/…"`, `"/health"` and `"/metrics"` literals.
    static func calledPaths(_ script: String) -> Set<String> {
        Set(script.matches(of: /"(\/v1\/[^"?]*|\/health|\/metrics)"/).map { String($0.output.1) })
    }

    /// Every API path the script calls is an operation's path in the OpenAPI document, its
    /// variables compared by position (`{userId}` and `{id}` are the same template).
    @Test func script_callsOnlyPathsInTheOpenAPIDocument() throws {
        let called = Self.calledPaths(try Self.script())
        #expect(called.count >= 10)
        let shape = { (path: String) in path.replacing(/\{[^}]*\}/, with: "{}") }
        let documented = Set(OpenAPIDocumentTests.operations(in: try OpenAPIDocumentTests.document()).map { shape($0.path) })
        for path in called.sorted() {
            let isDocumented = documented.contains(shape(path))
            #expect(isDocumented, "the console calls \(path), which the OpenAPI document does not have")
        }
    }

    /// Data reaches the page only as text: no markup parsing, no code from strings.
    @Test func script_neverInsertsMarkupOrEvaluatesText() throws {
        let script = try Self.script()
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\"", "srcdoc"] {
            #expect(!script.contains(forbidden), "the script uses \(forbidden)")
        }
        #expect(script.contains("textContent"))
        // The token never goes into a URL or a cookie.
        #expect(!script.contains("document.cookie"))
        #expect(!script.contains("localStorage"))
    }
}
