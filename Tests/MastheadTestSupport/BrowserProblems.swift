import MastheadJSON

/// What went wrong in the page while a test drove it, collected from the DevTools events so a
/// test can assert that nothing did.
public struct BrowserProblems: Sendable, CustomStringConvertible {
    /// `console.error` and `console.assert` calls, and other error-level log entries.
    public var consoleErrors: [String] = []
    /// Exceptions no script caught.
    public var exceptions: [String] = []
    /// Content Security Policy violations (what was blocked).
    public var securityViolations: [String] = []
    /// Requests that failed or were answered with an error status; expected when a test makes the
    /// page call the API wrongly on purpose, so not counted in ``isEmpty``.
    public var failedRequests: [String] = []

    public init() {}

    /// Whether no console error, uncaught exception or CSP violation happened.
    public var isEmpty: Bool { consoleErrors.isEmpty && exceptions.isEmpty && securityViolations.isEmpty }

    public var description: String {
        let lists = [("console errors", consoleErrors), ("exceptions", exceptions), ("CSP violations", securityViolations)]
        let told = lists.filter { !$0.1.isEmpty }.map { "\($0.0): \($0.1.joined(separator: " | "))" }
        return told.isEmpty ? "no problems" : told.joined(separator: "; ")
    }

    /// Records what the event `method` with `params` reports, if it is a problem.
    mutating func record(_ method: String, _ params: JSONValue) {
        switch method {
        case "Runtime.consoleAPICalled":
            guard let type = params["type"]?.string, type == "error" || type == "assert" else { return }
            let arguments = params["args"]?.elements.map { $0["value"]?.string ?? $0["description"]?.string ?? $0["type"]?.string ?? "?" } ?? []
            consoleErrors.append("console.\(type): " + arguments.joined(separator: " "))
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"]
            exceptions.append(details?["exception"]?["description"]?.string ?? details?["text"]?.string ?? "an exception")
        case "Log.entryAdded":
            guard let entry = params["entry"] else { return }
            let text = entry["text"]?.string ?? ""
            let source = entry["source"]?.string
            if source == "security" || text.contains("Content Security Policy") {
                securityViolations.append(text)
            } else if source == "network" {
                failedRequests.append(text + (entry["url"]?.string.map { " (\($0))" } ?? ""))
            } else if entry["level"]?.string == "error" {
                consoleErrors.append(text)
            }
        default: return
        }
    }
}
