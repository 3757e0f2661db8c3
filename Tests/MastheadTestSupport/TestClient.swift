// `timeval`'s initialiser comes from whichever Clang module read <sys/time.h> first; in a release
// build of this target that is COpenSSL's, so it is imported here for that alone.
import COpenSSL
import Glibc

/// A blocking TCP client for live server tests, with a receive timeout.
public final class TestClient {
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where the next response starts in `buffer`.
    private var bufferStart = 0

    /// One HTTP response.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
    }

    public init(port: UInt16, timeoutMilliseconds: Int = 5000) throws {
        ignoreBrokenPipes()
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ClientError.failed("connect errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutMilliseconds / 1000, tv_usec: (timeoutMilliseconds % 1000) * 1000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    public enum ClientError: Error { case failed(String) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            offset += count
        }
    }

    /// Sends a request with a Content-Length body and reads the response.
    public func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) -> Response? {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        send(Array(head.utf8) + body)
        return response()
    }

    /// Ends the stream towards the server (a half-close); answers can still be read.
    public func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Sends what the socket takes at once without waiting; returns how many bytes it took.
    public func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return max(0, count)
    }

    /// Reads one response; nil when the server closed the connection (or the timeout passed) first.
    /// `bodyless` reads the answer to a HEAD request: its Content-Length announces a body that is not sent.
    public func response(bodyless: Bool = false) -> Response? {
        while true {
            if let parsed = parseBuffered(bodyless: bodyless) { return parsed }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether the server has closed the connection (reads end of stream).
    public func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) == 0
    }

    private func parseBuffered(bodyless: Bool) -> Response? {
        let end = buffer.count
        guard let headEnd = (bufferStart..<max(bufferStart, end - 3)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) else {
            return nil
        }
        let head = String(decoding: buffer[bufferStart..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard head[0].hasPrefix("HTTP/1.") else { return Response(status: 0, headers: [:], body: "malformed status line: \(head[0].prefix(60))") }
        let status = head[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return Response(status: 0, headers: [:], body: "malformed header line: \(line)") }
            headers[parts[0].lowercased()] = String(parts[1]).trimmed(" ")
        }
        let length = bodyless ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        guard end >= headEnd + 4 + length else { return nil }
        let body = String(decoding: buffer[(headEnd + 4)..<(headEnd + 4 + length)], as: UTF8.self)
        bufferStart = headEnd + 4 + length
        if bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        }
        return Response(status: status, headers: headers, body: body)
    }
}

extension String {
    /// The string without the given characters at either end.
    public func trimmed(_ set: String) -> String {
        var result = Substring(self)
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return String(result)
    }
}

/// Makes a write to a closed socket or pipe an error (EPIPE) instead of killing the test process:
/// tests close connections on purpose, and the outgoing transport may write after a peer left.
public func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
