public import Masthead
import MastheadJSON

/// Reads the records of a grants file as a print fulfilment house exports it (R17): CSV with a
/// header, or JSON lines.
///
/// CSV's header names the columns `grantId`, `userId`, `publications` (ids separated by `;`),
/// `access` (`archive` or `streaming`), `start`, `end` (empty: open-ended) and `source`, in any
/// order, and optionally `window` and `revokedAt` (empty: none); fields follow RFC 4180 (a field
/// in double quotes may hold commas, line breaks and `""` for a quote). A CSV row is a span grant;
/// a date alone as its `end` includes that day, as ``GrantDecoder`` reads it.
/// A JSON line is a grant object as ``GrantDecoder`` reads it (spans or issue grants) with the
/// user's `userId`. Instants are RFC 3339 or a date alone (midnight UTC). Each record's bytes must
/// be UTF-8 without control characters in ids; a problem names the field.
public enum GrantsFileDecoder {
    /// How a grants file is written.
    public enum Format: String, Sendable {
        case csv
        case jsonLines = "JSON lines"

        /// The format a file starting with `bytes` is in: JSON lines when its first byte that is
        /// not blank (space, tab, line break) is `{`, CSV otherwise.
        public init(firstBytes bytes: some Sequence<UInt8>) {
            let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            self = first == UInt8(ascii: "{") ? .jsonLines : .csv
        }
    }

    /// Why a record cannot be used: the field (a CSV column, a JSON path, or `line`) and what is wrong.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var field: String
        public var message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }

        public var description: String { "\(field): \(message)" }
    }

    /// The columns of a CSV file, from its header.
    public struct CSVHeader: Sendable {
        /// Each known column's position.
        let positions: [String: Int]
        /// How many fields each row has.
        public let count: Int
    }

    /// The columns a CSV header must name.
    public static let requiredColumns = ["grantId", "userId", "publications", "access", "start", "end", "source"]
    /// The columns a CSV header may also name.
    public static let optionalColumns = ["window", "revokedAt"]

    /// The columns of a CSV header record.
    /// - Throws: ``Problem`` naming an unknown (with the nearest known name), repeated or missing column.
    public static func csvHeader(_ record: [UInt8]) throws(Problem) -> CSVHeader {
        let names = try csvFields(record)
        var positions: [String: Int] = [:]
        let known = requiredColumns + optionalColumns
        for (index, name) in names.enumerated() {
            guard known.contains(name) else {
                let nearest = Spelling.closest(to: name, among: known)
                throw Problem(field: "header", message: "unknown column \"\(name)\"" + (nearest.map { "; did you mean \"\($0)\"?" } ?? ""))
            }
            guard positions.updateValue(index, forKey: name) == nil else { throw Problem(field: "header", message: "column \"\(name)\" is named twice") }
        }
        let missing = requiredColumns.filter { positions[$0] == nil }
        guard missing.isEmpty else { throw Problem(field: "header", message: "missing column(s) \(missing.joined(separator: ", "))") }
        return CSVHeader(positions: positions, count: names.count)
    }

    /// Whether a CSV record is complete: its double quotes are balanced, so a line break so far
    /// was not inside a quoted field.
    public static func csvRecordIsComplete(_ bytes: [UInt8]) -> Bool {
        var quotes = 0
        for byte in bytes where byte == UInt8(ascii: "\"") { quotes &+= 1 }
        return quotes & 1 == 0
    }

    /// The fields of a CSV record (RFC 4180), its bytes valid UTF-8 without NUL.
    /// - Throws: ``Problem`` for bytes that are not UTF-8, a NUL, or a quote out of place.
    public static func csvFields(_ record: [UInt8]) throws(Problem) -> [String] {
        try checkUTF8(record)
        var fields: [String] = []
        var field: [UInt8] = []
        var index = 0
        let bytes = record
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ",")
        while true {
            field.removeAll(keepingCapacity: true)
            let column = fields.count + 1
            if index < bytes.count && bytes[index] == quote {
                index += 1
                while true {
                    guard index < bytes.count else { throw Problem(field: "column \(column)", message: "a quoted field is not closed") }
                    if bytes[index] == quote {
                        if index + 1 < bytes.count && bytes[index + 1] == quote {
                            field.append(quote)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.append(bytes[index])
                    index += 1
                }
                guard index == bytes.count || bytes[index] == comma else {
                    throw Problem(field: "column \(column)", message: "a closing quote must end the field")
                }
            } else {
                while index < bytes.count && bytes[index] != comma {
                    guard bytes[index] != quote else {
                        throw Problem(field: "column \(column)", message: "a quote inside a field that does not start with one")
                    }
                    field.append(bytes[index])
                    index += 1
                }
            }
            fields.append(String(decoding: field, as: UTF8.self))
            if index == bytes.count { return fields }
            index += 1  // the comma
        }
    }

    /// The user and span grant of a CSV record under `header`.
    /// - Throws: ``Problem`` naming the column.
    public static func grant(csv record: [UInt8], header: CSVHeader) throws(Problem) -> (userId: String, grant: Grant) {
        let fields = try csvFields(record)
        guard fields.count == header.count else {
            throw Problem(field: "line", message: "has \(fields.count) field(s), the header names \(header.count)")
        }
        func field(_ name: String) -> String? { header.positions[name].map { fields[$0] } }
        let grantId = try identifier(field("grantId")!, "grantId")
        let userId = try identifier(field("userId")!, "userId")
        let source = try identifier(field("source")!, "source")
        let publicationsText = field("publications")!
        guard !publicationsText.isEmpty else { throw Problem(field: "publications", message: "names no publication") }
        var publications: [String] = []
        for (index, id) in publicationsText.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            guard index < GrantDecoder.maxPublications else {
                throw Problem(field: "publications", message: "names more than \(GrantDecoder.maxPublications) publications")
            }
            publications.append(try identifier(String(id), "publications[\(index)]"))
        }
        let accessText = field("access")!
        guard let access = AccessStyle(rawValue: accessText) else {
            throw Problem(field: "access", message: "\(quoted(accessText)) is not archive or streaming")
        }
        var window: Int?
        if let text = field("window"), !text.isEmpty {
            guard let number = Int(text) else { throw Problem(field: "window", message: "\(quoted(text)) is not a whole number") }
            window = number
        }
        let start = try instant(field("start")!, "start")
        let end = try optionalInstant(field("end")!, "end", dateMeansEndOfDay: true)
        let revokedAt = try optionalInstant(field("revokedAt") ?? "", "revokedAt")
        let grant = Grant(
            grantId: grantId, source: source, scope: .span(publications: publications, access: access, window: window), start: start, end: end,
            revokedAt: revokedAt)
        if let problem = grant.problem { throw Problem(field: problem.field, message: problem.message) }
        return (userId, grant)
    }

    /// The user and grant of a JSON line: a grant object (``GrantDecoder``) with its `userId`.
    /// - Throws: ``Problem`` naming the JSON path.
    public static func grant(jsonLine record: [UInt8]) throws(Problem) -> (userId: String, grant: Grant) {
        try checkUTF8(record)
        let document: JSONDocument
        do { document = try JSONDocument(parsing: record) } catch { throw Problem(field: "line", message: "not JSON: \(error)") }
        let root = document.root
        guard root.kind == .object else { throw Problem(field: "$", message: "expected a grant object") }
        guard let member = root["userId"], !member.isNull else { throw Problem(field: "$.userId", message: "missing") }
        guard let userId = member.string else { throw Problem(field: "$.userId", message: "expected a string, found \(member.rendered)") }
        _ = try identifier(userId, "$.userId")
        do {
            return (userId, try GrantDecoder.grant(root, path: "$", alsoKnown: ["userId"]))
        } catch {
            switch error {
            case .missingField(let path, _): throw Problem(field: path, message: "missing")
            case .invalidValue(let path, _, let value, let expected): throw Problem(field: path, message: "\(value): expected \(expected)")
            default: throw Problem(field: "$", message: "\(error)")
            }
        }
    }

    /// Checks that the record's bytes are UTF-8 without NUL.
    private static func checkUTF8(_ record: [UInt8]) throws(Problem) {
        if let offset = record.firstIndex(of: 0) { throw Problem(field: "line", message: "holds a NUL byte (byte \(offset + 1))") }
        // ASCII (the usual export) needs no decoding.
        if record.allSatisfy({ $0 < 0x80 }) { return }
        guard String(validating: record, as: UTF8.self) != nil else { throw Problem(field: "line", message: "is not valid UTF-8") }
    }

    private static func identifier(_ text: String, _ field: String) throws(Problem) -> String {
        guard !text.isEmpty else { throw Problem(field: field, message: "is empty") }
        guard !text.unicodeScalars.contains(where: IdentifierText.isControl) else {
            throw Problem(field: field, message: "\(quoted(text)) holds a control character")
        }
        return text
    }

    private static func instant(_ text: String, _ field: String, dateMeansEndOfDay: Bool = false) throws(Problem) -> Instant {
        guard !text.isEmpty else { throw Problem(field: field, message: "is empty") }
        guard let instant = GrantDecoder.instant(text, dateMeansEndOfDay: dateMeansEndOfDay) else {
            throw Problem(field: field, message: "\(quoted(text)) is not an RFC 3339 instant (2020-01-01T00:00:00Z) or a date (2020-01-01)")
        }
        return instant
    }

    private static func optionalInstant(_ text: String, _ field: String, dateMeansEndOfDay: Bool = false) throws(Problem) -> Instant? {
        text.isEmpty ? nil : try instant(text, field, dateMeansEndOfDay: dateMeansEndOfDay)
    }

    private static func quoted(_ text: String) -> String { IdentifierText.escaped(text) }
}
