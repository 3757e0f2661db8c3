import Glibc

/// Parses HTTP/1.x requests from a connection's bytes (RFC 9112), enforcing the configured limits;
/// what it refuses it throws as an ``HTTPError``.
///
/// Bodies are framed by `Content-Length` only. Ambiguous framing is refused (RFC 9112 §6.3):
/// `Transfer-Encoding` together with `Content-Length`, several differing `Content-Length`s, or one
/// that is not a number, is 400; `Transfer-Encoding` alone is 501 (chunked bodies are not
/// supported). Line folding is refused. Bare LF line ends are accepted. A field value holding a
/// control byte (NUL, a bare CR, any other below 0x20 but tab, or DEL) is 400 (RFC 9110 §5.5), and
/// so is an HTTP/1.1 request without exactly one `Host` field (RFC 9112 §3.2). A request whose body
/// has not all arrived is reported once, as soon as its head is complete, so that it can be refused
/// before its body is read; one sent with `Expect: 100-continue` (HTTP/1.1) is told so
/// (RFC 9110 §10.1.1).
///
/// Package access so that the fuzz target can drive it without a server.
package struct HTTPRequestParser {
    package let configuration: HTTPServerConfiguration

    /// Creates a parser enforcing the limits of `configuration`.
    package init(configuration: HTTPServerConfiguration) { self.configuration = configuration }

    /// What one call to ``parse(_:headSearchedUpTo:)`` found.
    package enum Outcome {
        /// More bytes are needed; the header section does not end before `headSearched`, so the
        /// next call may start looking there (a slow client is not rescanned from the start).
        case incomplete(headSearched: Int)
        /// A whole request, how many bytes it used, and whether it is HTTP/1.0.
        case request(HTTPRequest, consumed: Int, isHTTP10: Bool)
        /// The head of a request whose body has not all arrived (the request's body is empty),
        /// `bodyBytes` its `Content-Length`, `received` how many of them have arrived, and whether
        /// it expects `100 Continue` before sending it; reported while `headReported` is false,
        /// else it is `incomplete`.
        case head(HTTPRequest, bodyBytes: Int, received: Int, expectsContinue: Bool)
    }

    /// Parses the first request in `bytes`; `hint` is the `headSearched` of the previous
    /// `.incomplete` outcome for the same bytes (0 the first time); `headReported` says the
    /// request's head has been reported (`.head`) already.
    /// - Throws: the ``HTTPError`` the bytes cannot be a valid request for: answer it and close.
    package func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, headSearchedUpTo hint: Int = 0, headReported: Bool = false
    ) throws(HTTPError) -> Outcome {
        guard let headEnd = findHeadEnd(bytes, from: hint) else {
            // The request line so far, without its line end (a CR may be all that came of it), is
            // measured as it is once the head is whole.
            let firstLineEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
            let carriageReturn = firstLineEnd > 0 && bytes[firstLineEnd - 1] == 0x0D
            if firstLineEnd - (carriageReturn ? 1 : 0) > configuration.maxRequestLineBytes {
                throw .targetTooLong(limit: configuration.maxRequestLineBytes)
            }
            if bytes.count > configuration.maxRequestLineBytes + configuration.maxHeaderListBytes + 4 {
                throw .headersTooLarge(limit: configuration.maxHeaderListBytes)
            }
            return .incomplete(headSearched: max(0, bytes.count - 2))
        }
        // `contentEnd` is the newline ending the last header line (or the request line); the
        // head was found, so there are bytes, and a newline ends the request line.
        let base = bytes.baseAddress!
        let requestLineEnd = HTTPRequestParser.newline(in: bytes, from: 0, through: headEnd.contentEnd)
        let requestLine = 0..<(requestLineEnd > 0 && bytes[requestLineEnd - 1] == 0x0D ? requestLineEnd - 1 : requestLineEnd)
        if requestLine.count > configuration.maxRequestLineBytes { throw .targetTooLong(limit: configuration.maxRequestLineBytes) }
        // METHOD SP TARGET SP VERSION, split at the first two spaces.
        let line = bytes[requestLine]
        guard let firstSpace = line.firstIndex(of: UInt8(ascii: " ")),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: UInt8(ascii: " ")),
            !line[(secondSpace + 1)...].contains(UInt8(ascii: " ")),
            firstSpace > line.startIndex, secondSpace > firstSpace + 1,
            line[..<firstSpace].allSatisfy(HTTPRequestParser.isTokenByte)
        else {
            throw .invalidRequestLine
        }
        let version = line[(secondSpace + 1)...]
        let isHTTP11 = HTTPRequestParser.isVersion(version, minor: UInt8(ascii: "1"))
        guard isHTTP11 || HTTPRequestParser.isVersion(version, minor: UInt8(ascii: "0")) else {
            if version.starts(with: "HTTP/".utf8) { throw .unsupportedVersion }
            throw .invalidRequestLine
        }
        let targetBytes = line[(firstSpace + 1)..<secondSpace]
        guard targetBytes.first == UInt8(ascii: "/"), targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidTarget
        }
        let method = String(decoding: line[..<firstSpace], as: UTF8.self)
        // Each newline after the request line's ends a header line.
        var headerLineCount = 0
        var start = requestLineEnd + 1
        while start <= headEnd.contentEnd, let hit = memchr(base + start, 0x0A, headEnd.contentEnd + 1 - start) {
            headerLineCount += 1
            start = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        if headerLineCount > configuration.maxHeaderCount {
            throw .tooManyHeaderFields(limit: configuration.maxHeaderCount)
        }
        if headEnd.contentEnd - (requestLine.upperBound) > configuration.maxHeaderListBytes {
            throw .headersTooLarge(limit: configuration.maxHeaderListBytes)
        }
        // Each field's name and value, as ranges of the head.
        var fields: [Range<Int>] = []
        fields.reserveCapacity(2 * headerLineCount)
        var contentLength: Int?
        var transferEncoding = false
        var connection: String?
        var expectsContinue = false
        var hosts = 0
        start = requestLineEnd + 1
        while start <= headEnd.contentEnd {
            let lineEnd = HTTPRequestParser.newline(in: bytes, from: start, through: headEnd.contentEnd)
            let line = start..<(lineEnd > start && bytes[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd)
            start = lineEnd + 1
            if line.count > configuration.maxHeaderFieldBytes {
                throw .headerFieldTooLarge(limit: configuration.maxHeaderFieldBytes)
            }
            let field = bytes[line]
            guard let first = field.first else { continue }
            if first == 0x20 || first == 0x09 { throw .obsoleteLineFolding }
            guard let colon = field.firstIndex(of: UInt8(ascii: ":")), colon > field.startIndex,
                bytes[field.startIndex..<colon].allSatisfy(HTTPRequestParser.isTokenByte)
            else { throw .invalidHeaderField }
            let nameBytes = bytes[field.startIndex..<colon]
            let valueBytes = trim(bytes[(colon + 1)..<field.endIndex])
            if valueBytes.contains(where: HTTPRequestParser.isControlByte) {
                throw .invalidHeaderValue(name: String(decoding: nameBytes.lazy.map(HTTPRequestParser.lowercased), as: UTF8.self))
            }
            if HTTPRequestParser.name(nameBytes, is: "host") {
                hosts += 1
            } else if HTTPRequestParser.name(nameBytes, is: "content-length") {
                guard !valueBytes.isEmpty, valueBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), valueBytes.count <= 15 else {
                    throw .invalidContentLength(String(decoding: valueBytes, as: UTF8.self))
                }
                // At most 15 digits: no overflow.
                let length = valueBytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                if let previous = contentLength, previous != length { throw .conflictingContentLength }
                contentLength = length
            } else if HTTPRequestParser.name(nameBytes, is: "transfer-encoding") {
                transferEncoding = true
            } else if HTTPRequestParser.name(nameBytes, is: "connection") {
                connection = String(decoding: valueBytes, as: UTF8.self).lowercased()
            } else if HTTPRequestParser.name(nameBytes, is: "expect") {
                expectsContinue = String(decoding: valueBytes, as: UTF8.self).lowercased() == "100-continue"
            }
            fields.append(nameBytes.startIndex..<colon)
            fields.append(valueBytes.startIndex..<valueBytes.endIndex)
        }
        if hosts > 1 { throw .severalHosts }
        if isHTTP11 && hosts == 0 { throw .missingHost }
        if transferEncoding {
            if contentLength != nil { throw .ambiguousFraming }
            throw .unsupportedTransferEncoding
        }
        let length = contentLength ?? 0
        if length > configuration.maxBodyBytes {
            throw .bodyTooLarge(limit: configuration.maxBodyBytes)
        }
        let total = headEnd.bodyStart + length
        let keepAlive: Bool =
            isHTTP11 ? !(connection?.contains("close") ?? false) : (connection?.contains("keep-alive") ?? false)
        // The head up to its last field's line end: the target and the fields lie in it.
        let head = Array(bytes[..<headEnd.contentEnd])
        let target = targetBytes.startIndex..<targetBytes.endIndex
        guard bytes.count >= total else {
            if !headReported {
                let head = HTTPRequest(method: method, head: head, target: target, fields: fields, body: [], keepAlive: keepAlive)
                // A server must not send 100 Continue to an HTTP/1.0 client (RFC 9110 §10.1.1).
                return .head(
                    head, bodyBytes: length, received: bytes.count - headEnd.bodyStart, expectsContinue: expectsContinue && isHTTP11)
            }
            return .incomplete(headSearched: hint)
        }
        let request = HTTPRequest(
            method: method, head: head, target: target, fields: fields, body: Array(bytes[headEnd.bodyStart..<total]), keepAlive: keepAlive)
        return .request(request, consumed: total, isHTTP10: !isHTTP11)
    }

    /// Where the first newline at or after `start` is; there is one at `last` or before.
    private static func newline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, through last: Int) -> Int {
        let base = bytes.baseAddress!
        return base.distance(to: memchr(base + start, 0x0A, last + 1 - start)!.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether a field name is `lowercaseName` but for the case of its letters.
    private static func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, is lowercaseName: StaticString) -> Bool {
        guard bytes.count == lowercaseName.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercaseName.utf8Start, count: lowercaseName.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { lowercased($0) == $1 }
    }

    /// A byte with an ASCII capital letter lowercased.
    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Whether `version` is `HTTP/1.` followed by `minor`.
    private static func isVersion(_ version: Slice<UnsafeBufferPointer<UInt8>>, minor: UInt8) -> Bool {
        guard version.count == 8 else { return false }
        let prefix: StaticString = "HTTP/1."
        return version[version.startIndex + 7] == minor && memcmp(version.base.baseAddress! + version.startIndex, prefix.utf8Start, 7) == 0
    }

    /// Where the header section ends: `contentEnd` before the blank line, `bodyStart` after it.
    private func findHeadEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (contentEnd: Int, bodyStart: Int)? {
        guard let base = bytes.baseAddress else { return nil }
        var index = min(start, bytes.count)
        while index < bytes.count, let hit = memchr(base + index, 0x0A, bytes.count - index) {
            index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            // "\n\n" or "\n\r\n" ends the head.
            if index + 1 < bytes.count && bytes[index + 1] == 0x0A { return (index, index + 2) }
            if index + 2 < bytes.count && bytes[index + 1] == 0x0D && bytes[index + 2] == 0x0A { return (index, index + 3) }
            if index == 0 || (index == 1 && bytes[0] == 0x0D) { return (index, index + 1) }
            index += 1
        }
        return nil
    }

    private func trim(_ slice: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var lower = slice.startIndex
        var upper = slice.endIndex
        while lower < upper && (slice.base[lower] == 0x20 || slice.base[lower] == 0x09) { lower += 1 }
        while upper > lower && (slice.base[upper - 1] == 0x20 || slice.base[upper - 1] == 0x09) { upper -= 1 }
        return slice.base[lower..<upper]
    }

    /// A byte a field value may not hold (RFC 9110 §5.5): a control character other than tab, or DEL.
    static func isControlByte(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    /// RFC 9110 token characters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
