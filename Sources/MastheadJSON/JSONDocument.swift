/// A parsed, validated JSON text: its bytes and a tape of its values, read lazily through
/// ``JSONValue``.
///
/// Parsing validates the whole text (RFC 8259) and decodes nothing; strings and numbers are
/// decoded only when read, and objects are searched in place instead of becoming dictionaries.
public struct JSONDocument: Sendable {
    let storage: JSONStorage

    /// The default limit on nesting depth.
    public static let defaultMaxDepth = 512

    /// Parses and validates a JSON text.
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - maxDepth: the deepest nesting accepted.
    /// - Throws: ``JSONError`` naming the line, column and path of the first problem.
    public init(parsing bytes: [UInt8], maxDepth: Int = JSONDocument.defaultMaxDepth) throws(JSONError) {
        guard bytes.count < Int(UInt32.max) else { throw JSONError.tooLarge(bytes: bytes.count) }
        let tape: [JSONToken] = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> [JSONToken] in
            var parser = JSONParser(
                base: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buffer.count,
                maxDepth: maxDepth, tapeCapacity: buffer.count / 12 + 4)
            try parser.parseDocument()
            return parser.tape
        }
        storage = JSONStorage(bytes: bytes, tape: tape)
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
/// The bytes are copied into a buffer the storage owns, so that values read them through a
/// plain pointer for as long as the storage lives, instead of through an array's closure.
final class JSONStorage: Sendable {
    let tape: [JSONToken]
    private nonisolated(unsafe) let buffer: UnsafeMutableBufferPointer<UInt8>

    init(bytes: [UInt8], tape: [JSONToken]) {
        self.tape = tape
        buffer = .allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
    }

    deinit { buffer.deallocate() }

    /// Calls `body` with the document's bytes.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(buffer))
    }
}
