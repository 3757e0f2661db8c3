extension PostgreSQLConnection {
    /// Whether `text` is a PostgreSQL URL (`postgresql://` or `postgres://`) rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// A connection string fit for messages and logs: a URL without the password of its user
    /// part (`postgresql://ana:secret@db/x` → `postgresql://ana@db/x`) or its `password`
    /// parameter; `key=value` pairs without their `password=…` pair.
    public static func redacted(_ connectionString: String) -> String {
        if isURL(connectionString) { return redactedURL(connectionString) }
        return connectionString.split(separator: " ", omittingEmptySubsequences: true)
            .filter { !$0.lowercased().hasPrefix("password=") }
            .joined(separator: " ")
    }

    private static func redactedURL(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        var rest = url[schemeEnd.upperBound...]
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            let pairs = rest[rest.index(after: mark)...].split(separator: "&").filter { !$0.lowercased().hasPrefix("password=") }
            query = pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
            rest = rest[..<mark]
        }
        // The user part ends at the last '@' before the path.
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            authority = authority[..<colon] + authority[at...]
        }
        return url[..<schemeEnd.upperBound] + authority + rest[authorityEnd...] + query
    }
}
