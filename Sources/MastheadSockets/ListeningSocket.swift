import CEpoll
import Glibc
import Synchronization

/// A non-blocking TCP listening socket (IPv4), closed when released.
///
/// `Sendable` because it is immutable and `accept` on one listening descriptor from several
/// threads is safe: each event loop accepts from it.
public final class ListeningSocket: Sendable {
    /// The file descriptor.
    public let descriptor: Int32
    /// The port it is bound to (the one the system chose when asked for port 0).
    public let port: UInt16
    public let host: String
    private let closed = Atomic<Bool>(false)

    /// Binds and listens on `host:port` with `SO_REUSEADDR`; port 0 picks a free port.
    public init(host: String, port: UInt16, backlog: Int32 = 1024) throws(SocketError) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError("socket") }
        var yes: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let error = SocketError("setsockopt(SO_REUSEADDR)")
            Glibc.close(descriptor)
            throw error
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            Glibc.close(descriptor)
            throw SocketError("inet_pton(\(host))", errno: EINVAL)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = SocketError("bind(\(host):\(port))")
            Glibc.close(descriptor)
            throw error
        }
        guard listen(descriptor, backlog) == 0 else {
            let error = SocketError("listen")
            Glibc.close(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let error = SocketError("getsockname")
            Glibc.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: actual.sin_port)
        self.host = host
    }

    deinit { close() }

    /// Closes the socket (once): new connections are refused from then on.
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { Glibc.close(descriptor) }
    }

    /// Accepts one pending connection as a non-blocking socket with `TCP_NODELAY`; nil when none is pending.
    public func accept() throws(SocketError) -> Int32? { try ListeningSocket.accept(on: descriptor) }

    /// Accepts from a listening descriptor shared by several threads.
    public static func accept(on descriptor: Int32) throws(SocketError) -> Int32? {
        while true {
            let client = cepoll_accept(descriptor)
            if client >= 0 {
                var yes: Int32 = 1
                _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                return client
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
            default: throw SocketError("accept4")
            }
        }
    }
}
