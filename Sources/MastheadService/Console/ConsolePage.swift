import CConsolePage
import MastheadHTTP

/// The support console's three files, `Sources/CConsolePage/console.html`, `console.js` and
/// `console.css`, compiled into the binary by that C target (C23's `#embed`), each with the
/// header fields it is served with.
enum ConsolePage {
    /// What the browser may do with the page: its own script, style and pictures (and the
    /// timeline's `blob:` URLs) only, never framed, no `<base>`, forms posted only to itself.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// The answer to `GET /console`.
    static let html = answer(masthead_console_html(), masthead_console_html_length(), contentType: "text/html; charset=utf-8")
    /// The answer to `GET /console/console.js`.
    static let script = answer(masthead_console_js(), masthead_console_js_length(), contentType: "text/javascript; charset=utf-8")
    /// The answer to `GET /console/console.css`.
    static let style = answer(masthead_console_css(), masthead_console_css_length(), contentType: "text/css; charset=utf-8")

    /// A 200 answer with the file's bytes, its content type, and the console's security and cache fields.
    static func answer(_ start: UnsafePointer<UInt8>, _ count: Int, contentType: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", contentType), ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"),
            ],
            body: Array(UnsafeBufferPointer(start: start, count: count)))
    }
}
