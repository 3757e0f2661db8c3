import Foundation
import MastheadClock

/// One blocking HTTP/1.1 client for Apple's endpoints (verifyReceipt and the App Store Server
/// API): a request out on a connection of its own (TLS through OpenSSL for `https://`: TLS 1.2 or
/// later, the certificate chained to the system's roots and issued for the host), the status,
/// header fields and body back, the connection closed.
///
/// Each exchange has a total deadline, ``timeoutSeconds`` from its start (or the caller's
/// earlier one): resolving the name, connecting, the TLS handshake, the first byte and the whole
/// answer must fit in it, however slowly the peer trickles bytes; past it the connection is
/// closed and the exchange reported as ``TransportFailure/timedOut(url:milliseconds:)``. An
/// answer whose body would pass ``maxResponseBytes`` (by its `Content-Length`, a chunk's size or
/// the bytes received) is not read further: the connection is closed at once and the exchange
/// reported as ``TransportFailure/tooLarge(url:limit:)``, so a broken or hostile peer can make
/// the process hold no more than the limit and one read. Redirects are not followed (a 3xx is an
/// answer like another); no compression is asked for. At most 4 name lookups run at once in the
/// process (one stuck past its exchange's deadline still counts): an exchange that finds none
/// free fails as a network failure; a name's addresses are used again for 60 s. Safe to use from several threads at once;
/// each call blocks its thread until the exchange ends.
public final class HTTPSTransport: Sendable {
    /// Seconds an exchange may take in all, from resolving the name to the answer's last byte.
    public let timeoutSeconds: Double
    /// The largest response body taken.
    public let maxResponseBytes: Int
    /// ``timeoutSeconds`` in milliseconds, at most a year.
    private let timeoutMilliseconds: Int64
    /// OpenSSL's client settings, made with the transport; nil when OpenSSL could not make them
    /// (an `https://` exchange then fails saying so).
    private let tls: TLSContext?
    /// Where servers' names are looked up: the process's shared lookups, at most 4 at once.
    let lookups: NameLookups

    /// Creates a transport.
    /// - Parameter rootCertificatesFile: a PEM file of the roots servers' certificates must chain
    ///   to, instead of the system's (tests).
    public convenience init(timeoutSeconds: Double = 30, maxResponseBytes: Int = 4 << 20, rootCertificatesFile: String? = nil) {
        self.init(timeoutSeconds: timeoutSeconds, maxResponseBytes: maxResponseBytes, rootCertificatesFile: rootCertificatesFile, lookups: .shared)
    }

    /// A transport whose name lookups are its own (at most 4 at once, apart from the process's
    /// shared ones), so that a resolver hanging on its hosts (a publisher's webhook endpoints)
    /// cannot take the lookups requests to Apple need.
    public static func withOwnNameLookups(timeoutSeconds: Double, maxResponseBytes: Int) -> HTTPSTransport {
        HTTPSTransport(
            timeoutSeconds: timeoutSeconds, maxResponseBytes: maxResponseBytes, rootCertificatesFile: nil,
            lookups: NameLookups(resolver: NameLookups.system))
    }

    /// Creates a transport whose names are looked up by `lookups`.
    init(timeoutSeconds: Double, maxResponseBytes: Int, rootCertificatesFile: String?, lookups: NameLookups) {
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        timeoutMilliseconds = Int64(min(max(timeoutSeconds, 0), 365 * 86_400) * 1000)
        tls = TLSContext(rootCertificatesFile: rootCertificatesFile)
        self.lookups = lookups
    }

    /// A request: method, absolute URL, header fields and body.
    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// Creates a request.
        public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// An answer: its status, header fields (names in lower case) and body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        /// Creates an answer.
        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The `Retry-After` field as a whole number of seconds; nil when absent or given as a date.
        public var retryAfterSeconds: Int? {
            guard let text = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0 else { return nil }
            return seconds
        }
    }

    /// Why an exchange gave no answer.
    public enum TransportFailure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The URL cannot be used.
        case invalidURL(String)
        /// The network failed.
        case network(url: String, reason: String)
        /// The whole answer had not arrived by the exchange's deadline, `milliseconds` after its
        /// start; the exchange was cancelled.
        case timedOut(url: String, milliseconds: Int64)
        /// The body was longer than the limit; it was not read further.
        case tooLarge(url: String, limit: Int)

        public var description: String {
            switch self {
            case .invalidURL(let url): "invalid URL \(url)"
            case .network(let url, let reason): "\(url) unreachable: \(reason)"
            case .timedOut(let url, let milliseconds): "\(url) gave no complete answer within \(milliseconds) ms"
            case .tooLarge(let url, let limit): "\(url) answered more than \(limit) bytes"
            }
        }
    }

    /// Sends `request` and waits for the whole answer, at most ``timeoutSeconds``, and never past
    /// `deadline` when one is given.
    /// - Parameter deadline: the latest end of the exchange, on the monotonic clock
    ///   (`SystemClock.monotonicMilliseconds()`), such as the end of a call of several requests.
    public func send(_ request: Request, deadline: Int64? = nil) -> Result<Response, TransportFailure> {
        guard let target = Target(request.url) else { return .failure(.invalidURL(request.url)) }
        let start = SystemClock.monotonicMilliseconds()
        let own = start + timeoutMilliseconds
        let end = min(own, deadline ?? own)
        guard end > start else { return .failure(.timedOut(url: request.url, milliseconds: 0)) }
        do throws(ExchangeFailure) {
            guard let head = target.head(request) else { throw .failed("a header field holds a line break") }
            var context: TLSContext?
            if target.secure {
                guard let tls else { throw .failed("TLS: OpenSSL could not make a client context (or read the root certificates)") }
                context = tls
            }
            let connection = try OutgoingConnection(host: target.host, port: target.port, tls: context, lookups: lookups, deadline: end)
            try connection.write(head + request.body)
            var reader = HTTPAnswerReader(connection)
            var answer = try reader.head()
            while (100..<200).contains(answer.status) && answer.status != 101 { answer = try reader.head() }  // interim answers
            let body = try reader.body(method: request.method, status: answer.status, headers: answer.headers, limit: maxResponseBytes)
            return .success(Response(status: answer.status, headers: answer.headers, body: body))
        } catch {
            switch error {
            case .timedOut: return .failure(.timedOut(url: request.url, milliseconds: end - start))
            case .tooLarge: return .failure(.tooLarge(url: request.url, limit: maxResponseBytes))
            case .failed(let reason): return .failure(.network(url: request.url, reason: reason))
            }
        }
    }

    /// Whether `url` is one a request can be sent to: an absolute `http://` or `https://` URL with
    /// a host, no user or password, a port from 1 to 65535, and no space or control character.
    public static func accepts(url: String) -> Bool { Target(url) != nil }

    /// Where a request goes: `http` or `https`, host, port, and the path with its query.
    struct Target {
        var secure: Bool
        var host: String
        var port: UInt16
        var pathAndQuery: String

        /// Nil unless `url` is an absolute `http://` or `https://` URL with a host.
        init?(_ url: String) {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let host = components.host, !host.isEmpty, components.user == nil
            else { return nil }
            secure = scheme == "https"
            self.host = host
            guard let port = UInt16(exactly: components.port ?? (secure ? 443 : 80)), port > 0 else { return nil }
            self.port = port
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            guard !(pathAndQuery + host).utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        }

        /// The request's head: its line, `Host`, the caller's fields, `Content-Length` and
        /// `Connection: close`; nil when a field's name or value holds a line break.
        func head(_ request: Request) -> [UInt8]? {
            let defaultPort: UInt16 = secure ? 443 : 80
            let hostName = host.contains(":") ? "[\(host)]" : host
            var text = "\(request.method) \(pathAndQuery) HTTP/1.1\r\nHost: \(hostName)\(port == defaultPort ? "" : ":\(port)")\r\n"
            for (name, value) in request.headers where !["host", "content-length", "connection", "transfer-encoding"].contains(name.lowercased()) {
                guard !(name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return nil }
                text += "\(name): \(value)\r\n"
            }
            if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" { text += "Content-Length: \(request.body.count)\r\n" }
            text += "Connection: close\r\n\r\n"
            return Array(text.utf8)
        }
    }
}
