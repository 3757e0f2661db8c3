/// A parsed, validated JSON text: its bytes and a tape of its values, read lazily through
/// ``JSONValue``.
///
/// Parsing validates the whole text (RFC 8259) and decodes nothing; strings and numbers are
/// decoded only when read, and objects are searched in place instead of becoming dictionaries.
public struct JSONDocument: Sendable {
    let storage: JSONStorage

    /// The default limit on nesting depth.
    public static let defaultMaxDepth = 512

    /// Parses and validates a JSON text; an object repeating a member name is an error.
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - maxDepth: the deepest nesting accepted.
    /// - Throws: ``JSONError`` naming the line, column and path of the first problem.
    public init(parsing bytes: [UInt8], maxDepth: Int = JSONDocument.defaultMaxDepth) throws(JSONError) {
        let tape = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in try JSONDocument.tape(of: buffer, maxDepth: maxDepth) }
        storage = JSONStorage(bytes: bytes, tape: tape)
    }

    /// Parses and validates `bytes` in place and calls `body` with the top-level value: nothing
    /// is copied and nothing reference-counted. The value, and anything read from it, is valid
    /// only until `body` returns.
    /// - Throws: ``JSONError`` when the text is not valid JSON (then `body` is not called).
    package static func withUnsafeParsing<R>(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONDocument.defaultMaxDepth, _ body: (UnsafeJSONValue) -> R
    ) throws(JSONError) -> R {
        let tape = try JSONDocument.tape(of: bytes, maxDepth: maxDepth)
        defer { tape.deallocate() }
        return body(UnsafeJSONValue(tape: tape, bytes: bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, index: 0))
    }

    /// Validates `bytes` and returns its tape (which the caller deallocates).
    private static func tape(of bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONError) -> UnsafeMutablePointer<JSONToken> {
        guard bytes.count < Int(UInt32.max) else { throw JSONError.tooLarge(bytes: bytes.count) }
        var parser = JSONParser(
            base: bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: bytes.count, maxDepth: maxDepth, tapeCapacity: bytes.count / 8 + 4)
        try parser.parseDocument()
        return parser.takeTape()
    }

    /// Parses and validates a JSON text given as a string.
    public init(parsing text: String, maxDepth: Int = JSONDocument.defaultMaxDepth) throws(JSONError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }

    /// The top-level value.
    public var root: JSONValue { JSONValue(storage: storage, index: 0) }
}

/// The bytes and tape one document's values share.
///
/// Both live in memory the storage owns, so that values read them through plain
/// pointers for as long as the storage lives.
final class JSONStorage: Sendable {
    nonisolated(unsafe) let bytes: UnsafeMutablePointer<UInt8>
    nonisolated(unsafe) let tape: UnsafeMutablePointer<JSONToken>

    /// Copies `source`, and takes over `tape` (allocated by a ``GrowableBuffer``).
    init(bytes source: [UInt8], tape: UnsafeMutablePointer<JSONToken>) {
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: source.count)
        source.withUnsafeBufferPointer { buffer in
            if let start = buffer.baseAddress { copy.initialize(from: start, count: buffer.count) }
        }
        bytes = copy
        self.tape = tape
    }

    deinit {
        bytes.deallocate()
        tape.deallocate()
    }
}
