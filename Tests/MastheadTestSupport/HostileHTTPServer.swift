import COpenSSL
import Foundation
import Glibc
import Synchronization

/// A server on loopback (a real socket on a free port; plain HTTP, or TLS with a given
/// certificate) that answers every request the same way, for the outgoing client's tests: the
/// way a broken or hostile peer would — an answer trickled a byte at a time, or a huge body
/// streamed from a small buffer (never built in memory) — or with a small JSON document. It
/// counts the body bytes the client's side took before it closed the connection.
///
/// `url` answers any path: give `url + "/production"` as a base URL.
public final class HostileHTTPServer: Sendable {
    /// How every request is answered.
    public enum Answer: Sendable {
        /// 200, chunked: one space every `intervalMilliseconds`, `bytes` of them, then `{}` and the
        /// end of the body (a valid JSON document, at last).
        case trickle(intervalMilliseconds: Int, bytes: Int)
        /// 200 with a body of `bytes` spaces, announced by `Content-Length` or sent chunked,
        /// written as fast as the client takes it.
        case huge(bytes: Int, chunked: Bool)
        /// 200 with this JSON text, announced by `Content-Length`.
        case json(String)
        /// These bytes as they are (head and body, well formed or not), then the connection closed.
        case raw([UInt8])
    }

    /// What the server saw.
    public struct Counts: Sendable {
        /// Requests whose head was read.
        public var requests = 0
        /// Body bytes the client's side accepted, over every connection.
        public var bodyBytesSent = 0
        /// Connections the client closed before the whole answer was written.
        public var closedEarly = 0
        /// Connections whose answer ended, written whole or cut off by the client.
        public var finished = 0
    }

    public let answer: Answer
    public let port: UInt16
    /// The server's TLS settings; nil for plain HTTP.
    private let tls: ServerTLS?
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let state = Mutex((counts: Counts(), connections: Set<Int32>()))

    /// Starts the server on a free port of 127.0.0.1, speaking TLS with the certificate (chain)
    /// and key of these PEM files when they are given.
    public init(_ answer: Answer, certificateFile: String? = nil, keyFile: String? = nil) throws {
        ignoreBrokenPipes()
        self.answer = answer
        if let certificateFile, let keyFile {
            guard let tls = ServerTLS(certificateFile: certificateFile, keyFile: keyFile) else { throw POSIXError(.EINVAL) }
            self.tls = tls
        } else {
            tls = nil
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 64) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            Glibc.close(descriptor)
            throw error
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    public var url: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// What the server saw so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Stops accepting and cuts every open connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        state.withLock { for connection in $0.connections { shutdown(connection, Int32(SHUT_RDWR)) } }
    }

    /// Waits up to `seconds` until `count` answers have finished; whether they had.
    public func waitUntilFinished(_ count: Int, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if counts.finished >= count { return true }
            usleep(10_000)
        }
        return counts.finished >= count
    }

    deinit {
        stop()
        Glibc.close(listener)
    }

    // MARK: Serving

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            // A client that stops reading without closing cannot hold a writer forever.
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            state.withLock { _ = $0.connections.insert(connection) }
            let thread = Thread { [self] in
                serve(connection)
                state.withLock { state in
                    state.connections.remove(connection)
                    state.counts.finished += 1
                }
                Glibc.close(connection)
            }
            thread.start()
        }
    }

    private func serve(_ descriptor: Int32) {
        var session: OpaquePointer?
        if let tls {
            guard let made = SSL_new(tls.context) else { return }
            session = made
            guard SSL_set_fd(made, descriptor) == 1, SSL_accept(made) == 1 else {
                SSL_free(made)
                return
            }
        }
        defer { if let session { SSL_free(session) } }
        let connection = Channel(descriptor: descriptor, tls: session)
        guard readHead(connection) else { return }
        state.withLock { $0.counts.requests += 1 }
        switch answer {
        case .trickle(let interval, let bytes):
            guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
            for _ in 0..<bytes {
                usleep(UInt32(interval) * 1000)
                guard !stopped.load(ordering: .relaxed), write(connection, "1\r\n \r\n") else { return closedEarly() }
                state.withLock { $0.counts.bodyBytesSent += 1 }
            }
            guard write(connection, "2\r\n{}\r\n0\r\n\r\n") else { return closedEarly() }
        case .huge(let bytes, let chunked):
            let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(bytes)"
            guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(framing)\r\n\r\n") else { return }
            let block = [UInt8](repeating: 0x20, count: 64 << 10)
            var left = bytes
            while left > 0 {
                let size = min(left, block.count)
                if chunked && !write(connection, String(size, radix: 16) + "\r\n") { return closedEarly() }
                var offset = 0
                while offset < size {
                    let sent = block.withUnsafeBytes { connection.send($0.baseAddress! + offset, size - offset) }
                    guard sent > 0, !stopped.load(ordering: .relaxed) else { return closedEarly() }
                    offset += sent
                    state.withLock { $0.counts.bodyBytesSent += sent }
                }
                if chunked && !write(connection, "\r\n") { return closedEarly() }
                left -= size
            }
            if chunked { _ = write(connection, "0\r\n\r\n") }
        case .json(let text):
            _ = write(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n\r\n" + text)
        case .raw(let bytes):
            _ = write(connection, bytes)
        }
    }

    private func closedEarly() { state.withLock { $0.counts.closedEarly += 1 } }

    /// Reads until the end of the request's head (its body, if any, is left unread).
    private func readHead(_ connection: Channel) -> Bool {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 64 << 10 {
            let count = buffer.withUnsafeMutableBytes { connection.receive($0.baseAddress!, $0.count) }
            guard count > 0 else { return false }
            head.append(contentsOf: buffer[0..<count])
            if head.count >= 4, head.indices.dropFirst(3).contains(where: { head[$0 - 3...$0].elementsEqual([13, 10, 13, 10]) }) { return true }
        }
        return false
    }

    private func write(_ connection: Channel, _ text: String) -> Bool { write(connection, Array(text.utf8)) }

    private func write(_ connection: Channel, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { connection.send($0.baseAddress! + offset, bytes.count - offset) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// A connection of the server: its socket, and its TLS session when it speaks TLS.
private struct Channel {
    var descriptor: Int32
    var tls: OpaquePointer?

    /// Bytes sent, or -1.
    func send(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        guard let tls else { return Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL)) }
        return Int(SSL_write(tls, bytes, Int32(min(count, Int(Int32.max)))))
    }

    /// Bytes received, 0 at the end, or -1.
    func receive(_ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard let tls else { return recv(descriptor, bytes, count, 0) }
        return Int(SSL_read(tls, bytes, Int32(min(count, Int(Int32.max)))))
    }
}

/// OpenSSL's server settings: the certificate chain and key.
private final class ServerTLS: @unchecked Sendable {
    /// The `SSL_CTX *`, shared by the connections' threads (OpenSSL allows it).
    let context: OpaquePointer

    init?(certificateFile: String, keyFile: String) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { return nil }
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1, SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}
