import Glibc

/// A parsed HTTP/1.x request with a complete body.
///
/// The request keeps its target and header fields as the bytes received, with where each path
/// segment, field name and field value lies in them; a part becomes a `String` only when it is
/// asked for, so a handler that reads a few path segments and one header builds no other string.
public struct HTTPRequest: Sendable {
    /// The method as sent (`GET`).
    public var method: String
    public var body: [UInt8]
    /// Whether the connection stays open after the response.
    public var keepAlive: Bool
    /// The bytes the parts below lie in: the request's head as received (or, for a request made
    /// in process, its target followed by each field's name and value).
    private let text: [UInt8]
    /// Where the target lies in `text`, and where its path ends (at its `?`, else the target's end).
    private let targetRange: Range<Int>
    private let pathEnd: Int
    /// Where each non-empty path segment lies in `text` (still percent-encoded), then each header
    /// field's name and value (the value trimmed of spaces and tabs).
    private let spans: [Range<Int>]
    /// How many of `spans` are path segments.
    private let segmentCount: Int
    /// Whether every field name is ASCII (always, from the parser: names are tokens); names are
    /// then compared by their bytes, ASCII letters in either case.
    private let namesAreASCII: Bool

    /// Creates a request (for tests and in-process calls).
    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], keepAlive: Bool = true
    ) {
        self.method = method
        self.body = body
        self.keepAlive = keepAlive
        var text = Array(target.utf8)
        targetRange = 0..<text.count
        pathEnd = text.firstIndex(of: UInt8(ascii: "?")) ?? text.count
        var spans: [Range<Int>] = []
        HTTPRequest.appendSegments(of: text, path: 0..<pathEnd, to: &spans)
        segmentCount = spans.count
        var namesAreASCII = true
        for header in headers {
            // Names from the parser are lowercase already.
            let name = header.name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? header.name.lowercased() : header.name
            if name.utf8.contains(where: { $0 >= 0x80 }) { namesAreASCII = false }
            spans.append(text.count..<(text.count + name.utf8.count))
            text.append(contentsOf: name.utf8)
            spans.append(text.count..<(text.count + header.value.utf8.count))
            text.append(contentsOf: header.value.utf8)
        }
        self.text = text
        self.spans = spans
        self.namesAreASCII = namesAreASCII
    }

    /// A request from the parser: `head` holds the target at `target` and each field's name and
    /// value at `fields` (names tokens, in the case sent).
    init(method: String, head: [UInt8], target: Range<Int>, fields: [Range<Int>], body: [UInt8], keepAlive: Bool) {
        self.method = method
        self.body = body
        self.keepAlive = keepAlive
        text = head
        targetRange = target
        pathEnd = head[target].firstIndex(of: UInt8(ascii: "?")) ?? target.upperBound
        var spans: [Range<Int>] = []
        spans.reserveCapacity(8 + fields.count)
        HTTPRequest.appendSegments(of: head, path: target.lowerBound..<pathEnd, to: &spans)
        segmentCount = spans.count
        spans.append(contentsOf: fields)
        self.spans = spans
        namesAreASCII = true
    }

    /// The request target as sent (`/v1/users/u1/issues?at=…`).
    public var target: String { String(decoding: text[targetRange], as: UTF8.self) }

    /// The path's segments, percent-decoded: `/v1/users/a%20b` → `["v1", "users", "a b"]`.
    public var pathSegments: [String] { (0..<segmentCount).map { pathSegment($0) } }

    /// How many segments the path has (the non-empty ones between slashes).
    public var pathSegmentCount: Int { segmentCount }

    /// The path's segment at `index`, percent-decoded (`pathSegments[index]`, without the others).
    public func pathSegment(_ index: Int) -> String {
        text.withUnsafeBufferPointer { HTTPRequest.percentDecode($0[spans[index]], plusIsSpace: false) }
    }

    /// Whether the path's segment at `index`, percent-decoded, is `literal`, byte for byte.
    public func pathSegment(_ index: Int, is literal: String) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            HTTPRequest.withDecoded(buffer[spans[index]], plusIsSpace: false) { HTTPRequest.sameBytes($0, literal) }
        }
    }

    /// The path's segment at `index` percent-decoded to bytes, before any UTF-8 repair: `%FF`
    /// stays the byte 0xFF, where ``pathSegment(_:)`` shows U+FFFD (as for `%FE`). A segment
    /// without escapes is a slice of the request's own bytes, not a copy.
    public func pathSegmentBytes(_ index: Int) -> ArraySlice<UInt8> {
        decoded(spans[index], plusIsSpace: false)
    }

    /// Query parameters, decoded (`+` is a space); the last of repeated names wins.
    public var query: [String: String] {
        guard pathEnd < targetRange.upperBound else { return [:] }
        return text.withUnsafeBufferPointer { HTTPRequest.parseQuery($0[(pathEnd + 1)..<targetRange.upperBound]) }
    }

    /// The value of the query parameter whose decoded name is `name`, byte for byte, decoded
    /// (`+` is a space; a parameter without `=` has the empty value); the last of repeated names
    /// wins, as in ``query``.
    public func queryValue(_ name: String) -> String? {
        queryValueBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value of the query parameter `name` (found as by ``queryValue(_:)``) decoded to bytes,
    /// before any UTF-8 repair; nil when the query has no such parameter. A value without escapes
    /// is a slice of the request's own bytes, not a copy.
    public func queryValueBytes(_ name: String) -> ArraySlice<UInt8>? {
        guard pathEnd < targetRange.upperBound else { return nil }
        let found: Range<Int>? = text.withUnsafeBufferPointer { buffer in
            let query = buffer[(pathEnd + 1)..<targetRange.upperBound]
            var found: Range<Int>?
            var start = query.startIndex
            while start < query.endIndex {
                let end = query[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
                if end > start {
                    let pair = query[start..<end]
                    let equals = pair.firstIndex(of: UInt8(ascii: "="))
                    if HTTPRequest.withDecoded(pair[..<(equals ?? end)], plusIsSpace: true, { HTTPRequest.sameBytes($0, name) }) {
                        found = (equals.map { $0 + 1 } ?? end)..<end
                    }
                }
                start = end + 1
            }
            return found
        }
        return found.map { decoded($0, plusIsSpace: true) }
    }

    /// Header fields in order, names lowercased.
    public var headers: [(name: String, value: String)] {
        stride(from: segmentCount, to: spans.count, by: 2).map { index in
            (name: lowercasedName(spans[index]), value: String(decoding: text[spans[index + 1]], as: UTF8.self))
        }
    }

    /// The first value of a header (name compared case-insensitively).
    public func header(_ name: String) -> String? {
        fieldValue(name).map { String(decoding: text[$0], as: UTF8.self) }
    }

    /// The UTF-8 of the first value of a header, as ``header(_:)`` gives it (invalid UTF-8
    /// repaired); an ASCII value is a slice of the request's own bytes, not a copy.
    public func headerUTF8(_ name: String) -> ArraySlice<UInt8>? {
        guard let range = fieldValue(name) else { return nil }
        if text.withUnsafeBufferPointer({ HTTPRequest.isASCII(UnsafeBufferPointer(rebasing: $0[range])) }) { return text[range] }
        return ArraySlice(String(decoding: text[range], as: UTF8.self).utf8)
    }

    /// Where the first value of the header `name` (compared case-insensitively) lies in `text`.
    private func fieldValue(_ name: String) -> Range<Int>? {
        var name = name
        let found: Range<Int>?? = name.withUTF8 { asked in
            // ASCII names: lowercasing is folding the letters, and equal strings are equal bytes.
            guard namesAreASCII && HTTPRequest.isASCII(asked) else { return nil }
            return text.withUnsafeBufferPointer { buffer in
                for index in stride(from: segmentCount, to: spans.count, by: 2)
                where HTTPRequest.equalFoldingASCII(UnsafeBufferPointer(rebasing: buffer[spans[index]]), asked) {
                    return spans[index + 1]
                }
                return .some(nil)
            }
        }
        if let found { return found }
        // Names are usually asked in lowercase ASCII already: lowercasing costs more than the search.
        let lowered = name.utf8.contains { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 } ? name.lowercased() : name
        for index in stride(from: segmentCount, to: spans.count, by: 2) where lowercasedName(spans[index]) == lowered {
            return spans[index + 1]
        }
        return nil
    }

    /// A field name from `text`, its ASCII letters lowercased (those of a request made in process are already).
    private func lowercasedName(_ range: Range<Int>) -> String {
        String(decoding: text[range].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `bytes` and `other` are the same bytes but for the case of ASCII letters.
    private static func equalFoldingASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == other.count else { return false }
        for index in bytes.indices {
            let left = bytes[index]
            let right = other[index]
            if left != right && !(left | 0x20 == right | 0x20 && left | 0x20 >= 0x61 && left | 0x20 <= 0x7A) { return false }
        }
        return true
    }

    /// Whether `bytes` are `text`'s UTF-8, byte for byte.
    private static func sameBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { other in
            other.count == bytes.count && (bytes.isEmpty || memcmp(bytes.baseAddress!, other.baseAddress!, bytes.count) == 0)
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Calls `body` with what `bytes` decode to (as ``percentDecodedBytes(_:plusIsSpace:)``),
    /// passing bytes without an escape (or a `+` in a query) as they are.
    private static func withDecoded(
        _ bytes: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        if needsDecoding(bytes, plusIsSpace: plusIsSpace) { return percentDecodedBytes(bytes, plusIsSpace: plusIsSpace).withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: bytes))
    }

    /// What the bytes of `text` at `range` decode to: a slice of `text` when they hold no escape
    /// (nor a `+` in a query).
    private func decoded(_ range: Range<Int>, plusIsSpace: Bool) -> ArraySlice<UInt8> {
        text.withUnsafeBufferPointer { buffer in
            HTTPRequest.needsDecoding(buffer[range], plusIsSpace: plusIsSpace)
                ? ArraySlice(HTTPRequest.percentDecodedBytes(buffer[range], plusIsSpace: plusIsSpace)) : nil
        } ?? text[range]
    }

    /// Whether `bytes` hold an escape (or a `+`, in a query).
    private static func needsDecoding(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> Bool {
        for byte in bytes where byte == UInt8(ascii: "%") || (plusIsSpace && byte == UInt8(ascii: "+")) { return true }
        return false
    }

    /// Appends where the non-empty segments between slashes of `path` lie.
    private static func appendSegments(of text: [UInt8], path: Range<Int>, to spans: inout [Range<Int>]) {
        var start = path.lowerBound
        while start < path.upperBound {
            let end = text[start..<path.upperBound].firstIndex(of: UInt8(ascii: "/")) ?? path.upperBound
            if end > start { spans.append(start..<end) }
            start = end + 1
        }
    }

    static func parseQuery(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [String: String] {
        var result: [String: String] = [:]
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if end > start {
                let pair = bytes[start..<end]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    result[percentDecode(pair[..<equals], plusIsSpace: true)] = percentDecode(pair[(equals + 1)...], plusIsSpace: true)
                } else {
                    result[percentDecode(pair, plusIsSpace: true)] = ""
                }
            }
            start = end + 1
        }
        return result
    }

    /// Decodes `%XX` escapes (and `+` in queries); a malformed escape is kept as written.
    static func percentDecode(_ utf8: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> String {
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: utf8, as: UTF8.self)
        }
        return String(decoding: percentDecodedBytes(utf8, plusIsSpace: plusIsSpace), as: UTF8.self)
    }

    /// The bytes `%XX` escapes (and `+` in queries) stand for; a malformed escape is kept as written.
    static func percentDecodedBytes(_ utf8: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.endIndex, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
