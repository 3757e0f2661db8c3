/// Reads one HTTP/1.1 answer from a connection: its head (at most ``maxHeadBytes``), then its
/// body as `Content-Length`, the chunked coding or the end of the connection frames it. The body
/// is never read past its limit: an announced length or chunk that would pass it stops the
/// reading at once (``ExchangeFailure/tooLarge``), and an unframed body stops one read past it.
struct HTTPAnswerReader {
    /// The largest head taken, status line and fields: 64 KiB.
    static let maxHeadBytes = 64 << 10
    /// The longest chunk-size line taken.
    static let maxChunkLineBytes = 1024

    private let connection: OutgoingConnection
    private var buffer: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: 16 << 10)

    init(_ connection: OutgoingConnection) { self.connection = connection }

    /// The status and header fields (names in lower case; a repeated field's values joined with
    /// ", ") of the next answer.
    mutating func head() throws(ExchangeFailure) -> (status: Int, headers: [String: String]) {
        var used = 0
        let statusLine = try line(limit: Self.maxHeadBytes, what: "head")
        used += statusLine.count + 2
        let parts = statusLine.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: Array("HTTP/1.".utf8)), parts[1].count == 3, parts[1].allSatisfy({ (0x30...0x39).contains($0) }),
            let status = Int(String(decoding: parts[1], as: UTF8.self))
        else { throw .failed("malformed status line") }
        var headers: [String: String] = [:]
        while true {
            let field = try line(limit: Self.maxHeadBytes - used, what: "head")
            used += field.count + 2
            if field.isEmpty { return (status, headers) }
            guard let colon = field.firstIndex(of: 0x3A), colon > field.startIndex, field.first != 0x20, field.first != 0x09 else {
                throw .failed("malformed header field")
            }
            let name = String(decoding: field[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: field[(colon + 1)...], as: UTF8.self).trimmingSpaces
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
    }

    /// The body of an answer with this status and these fields to a request with `method`, at
    /// most `limit` bytes.
    mutating func body(method: String, status: Int, headers: [String: String], limit: Int) throws(ExchangeFailure) -> [UInt8] {
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) { return [] }
        if let coding = headers["transfer-encoding"] {
            guard coding.lowercased() == "chunked" else { throw .failed("unsupported Transfer-Encoding \(UpstreamText.quoted(coding))") }
            return try chunked(limit: limit)
        }
        if let length = headers["content-length"] {
            let values = Set(length.split(separator: ",").map { String($0).trimmingSpaces })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let count = Int(text)
            else { throw .failed("malformed Content-Length \(UpstreamText.quoted(length))") }
            guard count <= limit else { throw .tooLarge }
            return try bytes(count)
        }
        var body = Array(buffer[start...])
        start = buffer.count
        while body.count <= limit, try fill() {
            body.append(contentsOf: buffer[start...])
            start = buffer.count
        }
        guard body.count <= limit else { throw .tooLarge }
        return body
    }

    // MARK: Framing

    private mutating func chunked(limit: Int) throws(ExchangeFailure) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try line(limit: Self.maxChunkLineBytes, what: "chunk size")
            guard let size = Self.chunkSize(sizeLine) else { throw .failed("malformed chunk size \(UpstreamText.quoted(sizeLine))") }
            if size == 0 { break }
            guard body.count + size <= limit else { throw .tooLarge }
            body.append(contentsOf: try bytes(size))
            guard try bytes(2) == [0x0D, 0x0A] else { throw .failed("malformed chunk: not its size, or no CRLF after it") }
        }
        var trailers = 0
        while true {
            let trailer = try line(limit: Self.maxHeadBytes - trailers, what: "trailer")
            if trailer.isEmpty { return body }
            trailers += trailer.count + 2
        }
    }

    /// The size a chunk-size line gives: 1 to 15 hexadecimal digits (no sign), then nothing,
    /// spaces or tabs, or a chunk extension after `;`; nil for any other line.
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = hexDigit(line[index]) {
            guard index - line.startIndex < 15 else { return nil }
            size = size << 4 | digit
            index += 1
        }
        guard index > line.startIndex else { return nil }
        let rest = line[index...].drop { $0 == 0x20 || $0 == 0x09 }
        guard rest.isEmpty || rest.first == 0x3B else { return nil }
        return size
    }

    /// The value of a hexadecimal digit's byte; nil for any other byte.
    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// The next `count` bytes.
    private mutating func bytes(_ count: Int) throws(ExchangeFailure) -> [UInt8] {
        while buffer.count - start < count {
            guard try fill() else { throw .failed("the connection ended inside the body") }
        }
        let taken = Array(buffer[start..<(start + count)])
        start += count
        return taken
    }

    /// The next line, without its CRLF: at most `limit` bytes before it.
    private mutating func line(limit: Int, what: String) throws(ExchangeFailure) -> ArraySlice<UInt8> {
        while true {
            if let end = buffer[start...].firstIndex(of: 0x0A) {
                guard end > start, buffer[end - 1] == 0x0D else { throw .failed("malformed \(what): a line without CRLF") }
                guard end - 1 - start <= limit else { throw .failed("\(what) too long") }
                let line = buffer[start..<(end - 1)]
                start = end + 1
                return line
            }
            guard buffer.count - start <= limit + 1 else { throw .failed("\(what) too long") }
            guard try fill() else { throw .failed("the connection ended inside the \(what)") }
        }
    }

    /// Reads more from the connection into the buffer; false at the end of the stream.
    private mutating func fill() throws(ExchangeFailure) -> Bool {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 << 10 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let read = scratch.withUnsafeMutableBytes { bytes in Result { () throws(ExchangeFailure) in try connection.read(into: bytes) } }
        let count = try read.get()
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<count])
        return true
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }), let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
