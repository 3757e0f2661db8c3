/// Where in a JSON text something went wrong: line and column (both from 1) and the JSON path.
public struct JSONLocation: Hashable, Sendable, CustomStringConvertible {
    /// The line, counted from 1.
    public var line: Int
    /// The column in bytes, counted from 1.
    public var column: Int
    /// The path of the value being read, such as `$.receipt.in_app[3].product_id`.
    public var path: String

    /// Creates a location.
    public init(line: Int, column: Int, path: String) {
        self.line = line
        self.column = column
        self.path = path
    }

    public var description: String { "line \(line), column \(column), at \(path)" }
}

/// A JSON text that is not valid RFC 8259 JSON, or that this reader refuses.
public enum JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text breaks the grammar; the message says what was expected or found.
    case syntax(message: String, at: JSONLocation)
    /// Containers nest deeper than the reader's limit.
    case tooDeep(limit: Int, at: JSONLocation)
    /// The text is larger than one document may be (offsets are 32-bit).
    case tooLarge(bytes: Int)
    /// An object repeats a member name (compared after unescaping); `offset` is the byte offset
    /// of the repeated name's opening quote, `at` its line, column and path.
    case duplicateKey(name: String, offset: Int, at: JSONLocation)

    public var description: String {
        switch self {
        case .syntax(let message, let location): "invalid JSON: \(message) (\(location))"
        case .tooDeep(let limit, let location): "invalid JSON: nesting deeper than \(limit) levels (\(location))"
        case .tooLarge(let bytes): "JSON document of \(bytes) bytes is larger than the 4 GiB limit"
        case .duplicateKey(let name, let offset, let location):
            "invalid JSON: duplicate key \(JSONError.quoted(name)) at byte \(offset) (\(location))"
        }
    }

    /// A name as a JSON string, so that control characters in it show as escapes.
    private static func quoted(_ name: String) -> String {
        var writer = JSONWriter(capacity: name.utf8.count + 2)
        writer.string(name)
        return writer.text
    }
}
