public import Masthead
public import MastheadJSON

/// Reads a publisher's grant (R17) from JSON, as an audit line, the service and a grants file
/// write it:
///
/// ```json
/// {"grantId": "g-123", "source": "print", "publications": ["weekly"], "access": "archive",
///  "start": "2020-01-01", "end": "2021-01-01"}
/// {"grantId": "g-124", "source": "makeGood", "publication": "weekly", "issues": ["2020-03"],
///  "start": "2020-04-02T09:00:00Z"}
/// ```
///
/// A span names `publications`, `access` (`archive` or `streaming`), optional `window`
/// (streaming), `start` and optional `end` (absent or null: open-ended); an issue grant names
/// `publication` and `issues` and `start`. `revokedAt` is optional. Instants are RFC 3339, or a
/// date alone: `2020-01-01` as `start` or `revokedAt` is that day's first instant (midnight UTC),
/// as `end` the end of that day, so `"end": "2020-12-31"` includes 31 December; an RFC 3339 `end`
/// is exclusive, as every interval's end (R1). Every id is a non-empty string without control
/// characters; a span names at most ``maxPublications`` publications and an issue grant at most
/// ``maxIssues`` issues; unknown keys are refused, so a misspelt field is never silently ignored. Grant ids starting with one of ``Grant/reservedPrefixes`` are
/// kept for licence memberships and refused.
public enum GrantDecoder {
    /// The most publications one span grant may name.
    public static let maxPublications = 1_000
    /// The most issues one issue grant may name.
    public static let maxIssues = 10_000

    /// The grant in `value`, an object at `path`.
    /// - Parameter grantId: the grant's id when the caller knows it (a URL names it): then the
    ///   object must not carry a different `grantId`; nil reads it from the object.
    /// - Throws: ``FormatError`` naming the field and its line.
    /// - Parameter alsoKnown: keys the caller reads itself (a grants file's `userId`), not refused.
    public static func grant(_ value: JSONValue, path: String = "$", grantId: String? = nil, alsoKnown: [StaticString] = []) throws(FormatError) -> Grant {
        try value.withUnsafeValue { (value) throws(FormatError) -> Grant in try grant(value, path: path, grantId: grantId, alsoKnown: alsoKnown) }
    }

    /// The grants of an array at `path`, each read by ``grant(_:path:grantId:)``; a grant id given
    /// twice is refused.
    public static func grants(_ value: JSONValue, path: String) throws(FormatError) -> [Grant] {
        try value.withUnsafeValue { (value) throws(FormatError) -> [Grant] in try grants(value, path: path) }
    }

    /// ``grants(_:path:)`` on a value read without reference counting.
    package static func grants(_ value: UnsafeJSONValue, path: String) throws(FormatError) -> [Grant] {
        guard value.kind == .array else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "an array of grants")
        }
        var grants: [Grant] = []
        var seen: Set<ExactKey> = []
        for (index, element) in value.elements.enumerated() {
            let elementPath = JSONPath.element(path, index)
            let grant = try grant(element, path: elementPath, grantId: nil)
            guard seen.insert(ExactKey(grant.grantId)).inserted else {
                throw FormatError.invalidValue(
                    path: JSONPath.member(elementPath, "grantId"), line: element.line, value: IdentifierText.escaped(grant.grantId),
                    expected: "a grant id not given earlier in the array")
            }
            grants.append(grant)
        }
        return grants
    }

    /// ``grant(_:path:grantId:)`` on a value read without reference counting.
    package static func grant(_ value: UnsafeJSONValue, path: String, grantId: String?, alsoKnown: [StaticString] = []) throws(FormatError) -> Grant {
        guard value.kind == .object else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "a grant object")
        }
        let known: [StaticString] = ["grantId", "source", "publications", "access", "window", "publication", "issues", "start", "end", "revokedAt"] + alsoKnown
        for (key, member) in value.members where !known.contains(where: { key == $0 }) {
            let name = key.string
            let nearest = Spelling.closest(to: name, among: known.map { "\($0)" })
            throw FormatError.invalidValue(
                path: JSONPath.member(path, name), line: member.line, value: member.rendered,
                expected: "no such grant field" + (nearest.map { " (did you mean \"\($0)\"?)" } ?? ""))
        }
        let id: String
        if let given = grantId {
            guard !given.isEmpty, !given.unicodeScalars.contains(where: IdentifierText.isControl) else {
                throw FormatError.invalidValue(
                    path: JSONPath.member(path, "grantId"), line: value.line, value: IdentifierText.escaped(given),
                    expected: "a grant id in the address that is not empty and has no control characters")
            }
            if let member = value.member("grantId"), !member.isNull {
                let written = try identifier(member, JSONPath.member(path, "grantId"))
                guard written.sameBytes(as: given) else {
                    throw FormatError.invalidValue(
                        path: JSONPath.member(path, "grantId"), line: member.line, value: member.rendered,
                        expected: "the grant id the address names, \(IdentifierText.escaped(given)), or none")
                }
            }
            id = given
        } else {
            id = try identifier(required(value, "grantId", path), JSONPath.member(path, "grantId"))
        }
        let source = try identifier(required(value, "source", path), JSONPath.member(path, "source"))
        let start = try instant(required(value, "start", path), JSONPath.member(path, "start"))
        let end = try optional(value, "end").map { (member) throws(FormatError) in
            try instant(member, JSONPath.member(path, "end"), dateMeansEndOfDay: true)
        }
        let revokedAt = try optional(value, "revokedAt").map { (member) throws(FormatError) in
            try instant(member, JSONPath.member(path, "revokedAt"))
        }
        let scope: Grant.Scope
        let spanKeys = ["publications", "access", "window"].filter { value[$0] != nil }
        let issueKeys = ["publication", "issues"].filter { value[$0] != nil }
        if !spanKeys.isEmpty && !issueKeys.isEmpty {
            let member = value[issueKeys[0]]!
            throw FormatError.invalidValue(
                path: JSONPath.member(path, issueKeys[0]), line: member.line, value: member.rendered,
                expected: "either a span (publications, access) or issues (publication, issues), not both")
        }
        if !issueKeys.isEmpty {
            let publication = try identifier(required(value, "publication", path), JSONPath.member(path, "publication"))
            let issues = try identifiers(required(value, "issues", path), JSONPath.member(path, "issues"), atMost: maxIssues)
            scope = .issues(publication: publication, issueIds: issues)
        } else {
            let publications = try identifiers(required(value, "publications", path), JSONPath.member(path, "publications"), atMost: maxPublications)
            let accessValue = try required(value, "access", path)
            guard let text = accessValue.string, let access = AccessStyle(rawValue: text) else {
                throw FormatError.invalidValue(
                    path: JSONPath.member(path, "access"), line: accessValue.line, value: accessValue.rendered, expected: "\"archive\" or \"streaming\"")
            }
            var window: Int?
            if let member = optional(value, "window") {
                guard let number = member.int64, let whole = Int(exactly: number) else {
                    throw FormatError.invalidValue(path: JSONPath.member(path, "window"), line: member.line, value: member.rendered, expected: "a whole number")
                }
                window = whole
            }
            scope = .span(publications: publications, access: access, window: window)
        }
        let grant = Grant(grantId: id, source: source, scope: scope, start: start, end: end, revokedAt: revokedAt)
        if let problem = grant.problem {
            // The field is a key, or a key and an index (`publications[1]`).
            let key = String(problem.field.prefix { $0 != "[" })
            let member = value[key]
            throw FormatError.invalidValue(
                path: JSONPath.member(path, key) + problem.field.dropFirst(key.count),
                line: member?.line ?? value.line, value: member?.rendered ?? "", expected: "a valid grant: \(problem.field) \(problem.message)")
        }
        return grant
    }

    /// An instant as a grant writes it: RFC 3339, or a date alone (`2020-01-01`): midnight UTC
    /// of that day, or of the next when `dateMeansEndOfDay` (a date as an exclusive `end`).
    public static func instant(_ text: String, dateMeansEndOfDay: Bool = false) -> Instant? {
        if let instant = DateText.rfc3339(text) { return instant }
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element) })
        else { return nil }
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } }
        let civil = CivilTime(year: number(0..<4), month: number(5..<7), day: number(8..<10))
        guard civil.isValid else { return nil }
        return dateMeansEndOfDay ? civil.instant.adding(milliseconds: Instant.millisecondsPerDay) : civil.instant
    }

    private static func required(_ object: UnsafeJSONValue, _ key: String, _ path: String) throws(FormatError) -> UnsafeJSONValue {
        guard let value = object[key], !value.isNull else { throw FormatError.missingField(path: JSONPath.member(path, key), line: object.line) }
        return value
    }

    private static func optional(_ object: UnsafeJSONValue, _ key: String) -> UnsafeJSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    private static func identifier(_ value: UnsafeJSONValue, _ path: String) throws(FormatError) -> String {
        guard let text = value.string, !text.isEmpty, !text.unicodeScalars.contains(where: IdentifierText.isControl) else {
            throw FormatError.invalidValue(
                path: path, line: value.line, value: value.string.map(IdentifierText.escaped) ?? value.rendered,
                expected: "a non-empty string without control characters")
        }
        return text
    }

    private static func identifiers(_ value: UnsafeJSONValue, _ path: String, atMost limit: Int) throws(FormatError) -> [String] {
        guard value.kind == .array else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "an array of ids")
        }
        var ids: [String] = []
        for (index, element) in value.elements.enumerated() {
            guard index < limit else {
                throw FormatError.invalidValue(path: JSONPath.element(path, index), line: element.line, value: element.rendered, expected: "at most \(limit) ids")
            }
            ids.append(try identifier(element, JSONPath.element(path, index)))
        }
        return ids
    }

    private static func instant(_ value: UnsafeJSONValue, _ path: String, dateMeansEndOfDay: Bool = false) throws(FormatError) -> Instant {
        guard let text = value.string, let instant = instant(text, dateMeansEndOfDay: dateMeansEndOfDay) else {
            throw FormatError.invalidValue(
                path: path, line: value.line, value: value.rendered, expected: "an RFC 3339 instant (2020-01-01T00:00:00Z) or a date (2020-01-01)")
        }
        return instant
    }
}
