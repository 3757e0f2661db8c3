// CEpoll declares the socket constants too (its header includes sys/socket.h): imported where they are used.
import CEpoll
import Glibc

/// One HTTP/1.1 keep-alive connection to the server over loopback, with blocking reads and
/// writes that give up after a timeout (so no soak thread can hang), or non-blocking writes.
final class SoakConnection {
    private let descriptor: Int32
    /// Bytes read and not yet returned as a response.
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`; nil when the connection is refused.
    init?(port: Int, timeoutSeconds: Int = 5, nonBlocking: Bool = false) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if nonBlocking { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
    }

    deinit { close(descriptor) }

    /// A request with the API token; `body` makes it a JSON POST.
    static func request(_ method: String, _ target: String, body: [UInt8]? = nil) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(BenchServer.apiToken)\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// Writes all of `bytes`; false when the connection failed or the write timed out.
    func send(_ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + (offset - bytes.startIndex), bytes.endIndex - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Writes what the socket takes now (a non-blocking connection): the bytes written, 0 when
    /// the socket is full, nil when the connection failed.
    func sendAvailable(_ bytes: ArraySlice<UInt8>) -> Int? {
        let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if count >= 0 { return count }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }

    /// Reads one response and returns its status; nil when the connection failed, closed or
    /// timed out first.
    func readResponse() -> Int? {
        while true {
            if let (status, length) = parseResponse() {
                buffer.removeSubrange(0..<length)
                return status
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether the server closed the connection (checked without waiting).
    var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// The status and length of the whole response at the start of the buffer, once it is there.
    private func parseResponse() -> (status: Int, length: Int)? {
        guard let headEnd = buffer.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A]) else { return nil }
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusText = lines.first?.split(separator: " ").dropFirst().first, let status = Int(statusText) else { return (0, headEnd.upperBound) }
        var contentLength = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            contentLength = Int(String(line.dropFirst("content-length:".count).filter { $0 != " " })) ?? 0
        }
        let length = headEnd.upperBound + contentLength
        return buffer.count >= length ? (status, length) : nil
    }
}
