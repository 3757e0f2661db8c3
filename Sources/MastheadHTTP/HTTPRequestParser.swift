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
        var lines: [Range<Int>] = []
        lines.reserveCapacity(16)
        var start = 0
        // `contentEnd` is the newline ending the last header line (or the request line); the
        // head was found, so there are bytes.
        let base = bytes.baseAddress!
        while start <= headEnd.contentEnd, let hit = memchr(base + start, 0x0A, headEnd.contentEnd + 1 - start) {
            let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            let end = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
            lines.append(start..<end)
            start = index + 1
        }
        // The head ends at a line end, so there is at least one line.
        let requestLine = lines[0]
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
        let target = String(decoding: targetBytes, as: UTF8.self)
        let headerLines = lines.dropFirst()
        if headerLines.count > configuration.maxHeaderCount {
            throw .tooManyHeaderFields(limit: configuration.maxHeaderCount)
        }
        if headEnd.contentEnd - (requestLine.upperBound) > configuration.maxHeaderListBytes {
            throw .headersTooLarge(limit: configuration.maxHeaderListBytes)
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(headerLines.count)
        var contentLength: Int?
        var transferEncoding = false
        var connection: String?
        var expectsContinue = false
        var hosts = 0
        for line in headerLines {
            if line.count > configuration.maxHeaderFieldBytes {
                throw .headerFieldTooLarge(limit: configuration.maxHeaderFieldBytes)
            }
            let field = bytes[line]
            guard let first = field.first else { continue }
            if first == 0x20 || first == 0x09 { throw .obsoleteLineFolding }
            guard let colon = field.firstIndex(of: UInt8(ascii: ":")), colon > field.startIndex,
                bytes[field.startIndex..<colon].allSatisfy(HTTPRequestParser.isTokenByte)
            else { throw .invalidHeaderField }
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[field.startIndex..<colon])
            let name = String(unsafeUninitializedCapacity: nameBytes.count) { lowered in
                for (offset, byte) in nameBytes.enumerated() { lowered[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                return nameBytes.count
            }
            let valueBytes = trim(bytes[(colon + 1)..<field.endIndex])
            if valueBytes.contains(where: HTTPRequestParser.isControlByte) { throw .invalidHeaderValue(name: name) }
            let value = String(decoding: valueBytes, as: UTF8.self)
            switch name {
            case "host":
                hosts += 1
            case "content-length":
                guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.utf8.count <= 15, let length = Int(value) else {
                    throw .invalidContentLength(value)
                }
                if let previous = contentLength, previous != length { throw .conflictingContentLength }
                contentLength = length
            case "transfer-encoding":
                transferEncoding = true
            case "connection":
                connection = value.lowercased()
            case "expect":
                expectsContinue = value.lowercased() == "100-continue"
            default:
                break
            }
            headers.append((name, value))
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
        guard bytes.count >= total else {
            if !headReported {
                var head = HTTPRequest(method: method, target: target, keepAlive: keepAlive)
                head.headers = headers
                // A server must not send 100 Continue to an HTTP/1.0 client (RFC 9110 §10.1.1).
                return .head(
                    head, bodyBytes: length, received: bytes.count - headEnd.bodyStart, expectsContinue: expectsContinue && isHTTP11)
            }
            return .incomplete(headSearched: hint)
        }
        var request = HTTPRequest(method: method, target: target, body: Array(bytes[headEnd.bodyStart..<total]), keepAlive: keepAlive)
        request.headers = headers
        return .request(request, consumed: total, isHTTP10: !isHTTP11)
    }

    /// Whether `version` is `HTTP/1.` followed by `minor`.
    private static func isVersion(_ version: Slice<UnsafeBufferPointer<UInt8>>, minor: UInt8) -> Bool {
        guard version.count == 8 else { return false }
        let prefix: [UInt8] = [0x48, 0x54, 0x54, 0x50, 0x2F, 0x31, 0x2E]  // "HTTP/1."
        return version[version.startIndex + 7] == minor && zip(version, prefix).allSatisfy { $0 == $1 }
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
