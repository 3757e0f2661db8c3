/// A parsed HTTP/1.x request with a complete body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent (`/v1/users/u1/issues?at=…`).
    public var target: String
    /// The path's segments, percent-decoded: `/v1/users/a%20b` → `["v1", "users", "a b"]`.
    public var pathSegments: [String]
    /// Query parameters, decoded (`+` is a space); the last of repeated names wins.
    public var query: [String: String]
    /// Header fields in order, names lowercased.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether the connection stays open after the response.
    public var keepAlive: Bool

    /// Creates a request (for tests and in-process calls).
    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], keepAlive: Bool = true
    ) {
        self.method = method
        self.target = target
        var text = target
        (pathSegments, query) = text.withUTF8 { utf8 in
            let mark = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.count
            return (HTTPRequest.parsePath(utf8[..<mark]), mark < utf8.count ? HTTPRequest.parseQuery(utf8[(mark + 1)...]) : [:])
        }
        // Names from the parser are lowercase already.
        self.headers = headers.map { header in
            header.name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? (name: header.name.lowercased(), value: header.value) : header
        }
        self.body = body
        self.keepAlive = keepAlive
    }

    /// The path's segments percent-decoded to bytes, as ``pathSegments`` but before any UTF-8
    /// repair: `%FF` stays the byte 0xFF, where ``pathSegments`` shows U+FFFD (as for `%FE`).
    public var pathSegmentBytes: [[UInt8]] {
        var text = target
        return text.withUTF8 { utf8 in
            let path = utf8[..<(utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.count)]
            return path.split(separator: UInt8(ascii: "/")).map { HTTPRequest.percentDecodedBytes($0, plusIsSpace: false) }
        }
    }

    /// The first value of a header (name compared case-insensitively).
    public func header(_ name: String) -> String? {
        // Names are usually asked in lowercase ASCII already: lowercasing costs more than the search.
        let lowered = name.utf8.contains { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 } ? name.lowercased() : name
        return headers.first { $0.name == lowered }?.value
    }

    /// The non-empty segments between slashes, decoded.
    static func parsePath(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [String] {
        var segments: [String] = []
        segments.reserveCapacity(8)
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            if end > start { segments.append(percentDecode(bytes[start..<end], plusIsSpace: false)) }
            start = end + 1
        }
        return segments
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
