import Foundation
import Masthead
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

    /// The text of a top-level function of the script, from `function name(` (or `async function
    /// name(`) to its closing brace at the start of a line, or nil when there is none.
    static func function(_ name: String, in script: String) -> String? {
        guard let start = script.range(of: "function \(name)("), let end = script.range(of: "\n}\n", range: start.upperBound..<script.endIndex) else { return nil }
        return String(script[start.lowerBound..<end.upperBound])
    }

    /// A form submitted before the script runs must not put the token in a URL: every form posts,
    /// the sign-in button is disabled until the script enables it, and the token is not remembered.
    @Test func html_everyFormPosts_andSignInWaitsForTheScript() throws {
        let html = try Self.html()
        let forms = Self.tags(html).filter { $0.hasPrefix("<form") }
        #expect(forms.count == 5)
        for form in forms {
            #expect(form.contains(#"method="post""#), "a form without method=\"post\": \(form)")
        }
        let signIn = try #require(Self.form("sign-in", in: html))
        #expect(signIn.contains(#"<input type="password" name="token" autocomplete="off""#))
        #expect(signIn.contains(#"<button type="submit" class="primary" disabled>"#))
        let start = try #require(Self.function("start", in: try Self.script()))
        #expect(start.contains(#"$('#sign-in button[type="submit"]').disabled = false;"#))
    }

    /// Correcting a streaming grant keeps its window: the form has one, Edit fills it and the
    /// body sends it (null only when the field is empty).
    @Test func grantForm_keepsAStreamingGrantsWindow() throws {
        let grant = try #require(Self.form("grant", in: try Self.html()))
        #expect(grant.contains(#"<input type="number" name="window""#))
        let script = try Self.script()
        let edit = try #require(Self.function("editGrant", in: script))
        #expect(edit.contains("fields.window.value = "))
        let body = try #require(Self.function("grantBody", in: script))
        #expect(body.contains(#"body.window = window === "" ? null : Number(window);"#))
    }

    /// The explanation is asked as of the instant the issue list shows, not from `data-at`,
    /// which a reload clears.
    @Test func script_explainsAsOfTheInstantTheIssuesShow() throws {
        let script = try Self.script()
        let explain = try #require(Self.function("explain", in: script))
        #expect(explain.hasPrefix("function explain(publicationId, issueId, title, button, at)"))
        #expect(explain.contains("query: { at, environment: state.environment }"))
        #expect(!explain.contains("data-at"))
        let issues = try #require(Self.function("showIssues", in: script))
        #expect(issues.contains("explain(publication.publication, issue.id, title, button, at)"))
    }

    /// Find trims the text, follows a reader found only in sandbox there, and offers to open a
    /// plausible user id nobody matched; such a reader's 404 shows as not seen yet.
    @Test func script_findTrims_followsSandbox_andOpensANewReader() throws {
        let script = try Self.script()
        let find = try #require(Self.function("find", in: script))
        #expect(find.contains("elements.q.value.trim()"))
        #expect(find.contains(#"if (environments.size === 1 && (environments.has("sandbox") || environments.has("production"))) setEnvironment(matches[0].environment);"#))
        #expect(find.contains(#""data-action": "open-anyway""#))
        #expect(find.contains("if (plausibleUserId(q))"))
        let setEnvironment = try #require(Self.function("setEnvironment", in: script))
        #expect(setEnvironment.contains("state.environment = environment;"))
        #expect(setEnvironment.contains(#"$('#as-of select[name="environment"]').value = environment;"#))
        let load = try #require(Self.function("loadReader", in: script))
        #expect(load.contains("isUnknownUser(entitlements.reason)"))
        #expect(load.contains("showNotSeen(userId)"))
        let notSeen = try #require(Self.function("showNotSeen", in: script))
        #expect(notSeen.contains("fillPublicationChoices();"))
        #expect(notSeen.contains(#"requestJSON("GET", "/v1/publications")"#), "a new reader's grant form must list the catalog's publications")
    }

    /// Every subscription state and known revocation type has words; the status element keeps
    /// the state itself, the words beside it.
    @Test func script_saysStatesAndRevocationTypesInWords() throws {
        let script = try Self.script()
        for state in SubscriptionState.allCases {
            #expect(script.contains(#"["\#(state.rawValue)", ""#), "no words for the state \(state.rawValue)")
        }
        #expect(script.contains(#"["billingRetry", "in billing retry"]"#) && script.contains(#"["none", "no subscription"]"#))
        for (type, words) in [(RevocationType.refundFull, "full refund"), (.refundProrated, "prorated refund"), (.familyRevoke, "Family Sharing ended")] {
            #expect(script.contains(#"["\#(type.rawValue)", "\#(words)"]"#), "no words for \(type.rawValue)")
        }
        let section = try #require(Self.function("publicationSection", in: script))
        #expect(section.contains(#"element("span", { "data-field": "status" }, [stateName]),"#))
        #expect(section.contains(#"element("span", { class: "status-words" }, [STATUS_WORDS.get(stateName) || ""])"#))
        #expect(script.contains(#"["revocationType", "Revocation type", "revocation"]"#))
    }

    /// The rejected notifications hold malformed bodies as well as bad signatures, and say so.
    @Test func html_rejectedNotificationsAreSaidToBeBadlySignedOrMalformed() throws {
        let html = try Self.html()
        #expect(html.contains("Notifications refused (bad signature or malformed)"))
        #expect(!html.contains("refused for their signature"))
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
