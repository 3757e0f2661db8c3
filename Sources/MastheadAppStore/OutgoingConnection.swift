import COpenSSL
import Glibc
import MastheadClock

/// Why an exchange with a server ended without an answer.
enum ExchangeFailure: Error {
    /// The deadline passed first.
    case timedOut
    /// The answer's body would pass the limit; nothing more of it was read.
    case tooLarge
    /// The name, the network, TLS or the answer's framing failed: why.
    case failed(String)
}

/// One client connection, plain TCP or TLS, of which every wait ends by a deadline (milliseconds
/// on the monotonic clock): resolving the name, connecting, the TLS handshake, each read and each
/// write. Closed when released; used by one thread.
final class OutgoingConnection {
    private let descriptor: Int32
    /// The TLS session (`SSL *`); nil for plain TCP.
    private let tls: OpaquePointer?
    private let deadline: Int64

    /// Connects to `host`:`port` (each of the addresses `lookups` gives in turn), over TLS when
    /// `context` is given: TLS 1.2 or later, the server's certificate chained to the system's
    /// roots and issued for `host`.
    init(host: String, port: UInt16, tls context: TLSContext?, lookups: NameLookups, deadline: Int64) throws(ExchangeFailure) {
        self.deadline = deadline
        let descriptor = try Self.connect(lookups.addresses(host, port, deadline: deadline), deadline: deadline)
        guard let context else {
            self.descriptor = descriptor
            tls = nil
            return
        }
        do throws(ExchangeFailure) {
            tls = try Self.handshake(descriptor, host: host, context: context, deadline: deadline)
            self.descriptor = descriptor
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit {
        if let tls { SSL_free(tls) }
        Glibc.close(descriptor)
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws(ExchangeFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 20)
            if let tls {
                ERR_clear_error()
                let written = bytes.withUnsafeBytes { SSL_write(tls, $0.baseAddress! + offset, Int32(count)) }
                if written > 0 {
                    offset += Int(written)
                } else {
                    try retry(tls, written)
                }
            } else {
                let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, count, Int32(MSG_NOSIGNAL)) }
                if sent >= 0 {
                    offset += sent
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    try Self.wait(descriptor, Int16(POLLOUT), until: deadline)
                } else if errno != EINTR {
                    throw .failed("sending: \(Self.errorText(errno))")
                }
            }
        }
    }

    /// Reads what has arrived into `buffer`, waiting for some; 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExchangeFailure) -> Int {
        while true {
            if let tls {
                ERR_clear_error()
                let count = SSL_read(tls, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
                if count > 0 { return Int(count) }
                if SSL_get_error(tls, count) == SSL_ERROR_ZERO_RETURN { return 0 }
                try retry(tls, count)
            } else {
                let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
                if count >= 0 { return count }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    try Self.wait(descriptor, Int16(POLLIN), until: deadline)
                } else if errno != EINTR {
                    throw .failed("receiving: \(Self.errorText(errno))")
                }
            }
        }
    }

    /// Waits until the TLS call that returned `result` can be made again, or throws why it failed.
    private func retry(_ tls: OpaquePointer, _ result: Int32) throws(ExchangeFailure) {
        switch SSL_get_error(tls, result) {
        case SSL_ERROR_WANT_READ: try Self.wait(descriptor, Int16(POLLIN), until: deadline)
        case SSL_ERROR_WANT_WRITE: try Self.wait(descriptor, Int16(POLLOUT), until: deadline)
        case SSL_ERROR_SYSCALL where errno != 0 && errno != EAGAIN: throw .failed("TLS: \(Self.errorText(errno))")
        default: throw .failed("TLS: \(Self.tlsErrorText())")
        }
    }

    // MARK: Connecting

    /// A connected non-blocking socket to the first address that answers.
    private static func connect(_ addresses: [SocketAddress], deadline: Int64) throws(ExchangeFailure) -> Int32 {
        var reasons: [String] = []
        for address in addresses {
            let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                reasons.append(errorText(errno))
                continue
            }
            let started = address.bytes.withUnsafeBytes { bytes in
                Glibc.connect(descriptor, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count)) == 0 || errno == EINPROGRESS
            }
            if started {
                do throws(ExchangeFailure) {
                    try wait(descriptor, Int16(POLLOUT), until: deadline)
                } catch {
                    Glibc.close(descriptor)
                    throw error
                }
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0 { return descriptor }
                reasons.append(errorText(failure))
            } else {
                reasons.append(errorText(errno))
            }
            Glibc.close(descriptor)
        }
        throw .failed("cannot connect: \(reasons.joined(separator: "; "))")
    }

    /// The TLS session over `descriptor`, its handshake done and the server's certificate checked for `host`.
    private static func handshake(_ descriptor: Int32, host: String, context: TLSContext, deadline: Int64) throws(ExchangeFailure) -> OpaquePointer {
        guard let tls = SSL_new(context.context) else { throw .failed("TLS: \(tlsErrorText())") }
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        let named =
            isAddress
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls), host) == 1
            : masthead_ssl_set_server_name(tls, host) == 1 && SSL_set1_host(tls, host) == 1
        guard named, SSL_set_fd(tls, descriptor) == 1 else {
            SSL_free(tls)
            throw .failed("TLS: \(tlsErrorText())")
        }
        while true {
            ERR_clear_error()
            let result = SSL_connect(tls)
            if result == 1 { return tls }
            do throws(ExchangeFailure) {
                switch SSL_get_error(tls, result) {
                case SSL_ERROR_WANT_READ: try wait(descriptor, Int16(POLLIN), until: deadline)
                case SSL_ERROR_WANT_WRITE: try wait(descriptor, Int16(POLLOUT), until: deadline)
                default:
                    let verified = SSL_get_verify_result(tls)
                    let reason = verified == X509_V_OK ? tlsErrorText() : "certificate refused: " + String(cString: X509_verify_cert_error_string(verified))
                    throw .failed("TLS handshake with \(host): \(reason)")
                }
            } catch {
                SSL_free(tls)
                throw error
            }
        }
    }

    // MARK: Waiting and errors

    /// Waits until `descriptor` is ready for `events`, at most until `deadline`.
    private static func wait(_ descriptor: Int32, _ events: Int16, until deadline: Int64) throws(ExchangeFailure) {
        while true {
            let left = deadline - SystemClock.monotonicMilliseconds()
            guard left > 0 else { throw .timedOut }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left, Int64(Int32.max))))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .failed("poll: \(errorText(errno))") }
        }
    }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// OpenSSL's oldest queued error, as text; the queue is emptied.
    private static func tlsErrorText() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "the connection ended" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// OpenSSL's client settings, shared by a transport's connections: TLS 1.2 or later, the
/// server's certificate verified against the system's roots (or those of a given file).
final class TLSContext: @unchecked Sendable {
    /// The `SSL_CTX *`; OpenSSL allows sessions to be made from it on several threads at once.
    let context: OpaquePointer

    /// Nil when OpenSSL cannot make one, or the roots cannot be read.
    /// - Parameter rootCertificatesFile: a PEM file of roots to trust instead of the system's.
    init?(rootCertificatesFile: String? = nil) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { return nil }
        let roots = rootCertificatesFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard masthead_ssl_ctx_require_tls12(context) == 1, roots == 1 else {
            SSL_CTX_free(context)
            return nil
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}
