/// Why the server answers a request with an error instead of its handler: a request that breaks
/// the framing rules (RFC 9112) or a limit of ``HTTPServerConfiguration``, or one not answered in time.
///
/// Each case has the ``status`` it is answered with and a ``message`` for people. The server turns
/// it into a response through its ``HTTPServer/ErrorResponse`` closure and closes the connection
/// after sending it.
public enum HTTPError: Error, Hashable, Sendable {
    /// The request line is not `METHOD SP target SP HTTP-version`: 400.
    case invalidRequestLine
    /// The request target is not a path starting with `/` of visible ASCII: 400.
    case invalidTarget
    /// The request line (mostly its target) is longer than `limit` bytes: 414.
    case targetTooLong(limit: Int)
    /// An HTTP version other than 1.1 and 1.0: 505.
    case unsupportedVersion
    /// A header field without a token name before a colon: 400.
    case invalidHeaderField
    /// A header line starting with a space or tab (RFC 9112 §5.2): 400.
    case obsoleteLineFolding
    /// A field value holding a control byte (NUL, a bare CR, another below 0x20 but tab, or DEL;
    /// RFC 9110 §5.5), with the field's name: 400.
    case invalidHeaderValue(name: String)
    /// An HTTP/1.1 request without a `Host` field (RFC 9112 §3.2): 400.
    case missingHost
    /// A request with more than one `Host` field (RFC 9112 §3.2): 400.
    case severalHosts
    /// More than `limit` header fields: 431.
    case tooManyHeaderFields(limit: Int)
    /// A header field longer than `limit` bytes: 431.
    case headerFieldTooLarge(limit: Int)
    /// A header section longer than `limit` bytes: 431.
    case headersTooLarge(limit: Int)
    /// A `Content-Length` value that is not a decimal number of at most 15 digits, as sent: 400.
    case invalidContentLength(String)
    /// Several `Content-Length` fields that differ (RFC 9112 §6.3): 400.
    case conflictingContentLength
    /// `Content-Length` together with `Transfer-Encoding` (RFC 9112 §6.3): 400.
    case ambiguousFraming
    /// `Transfer-Encoding`: chunked bodies are not supported: 501.
    case unsupportedTransferEncoding
    /// A body longer than `limit` bytes: 413.
    case bodyTooLarge(limit: Int)
    /// The request did not arrive completely within the read timeout: 408.
    case requestTimeout
    /// The handler did not answer within the handler timeout: 503.
    case handlerTimeout
    /// The event loop has as many connections as it may: 503.
    case tooManyConnections
    /// The request body bytes received of requests being received or answered, all connections
    /// together, would exceed `limit` bytes with those just read of this one (``HTTPServerConfiguration/maxBufferedBodyBytes``): 503, with
    /// `Retry-After` (``retryAfterSeconds``).
    case bodyBudgetExhausted(limit: Int)

    /// The status code it is answered with.
    public var status: Int {
        switch self {
        case .invalidRequestLine, .invalidTarget, .invalidHeaderField, .obsoleteLineFolding, .invalidHeaderValue, .missingHost,
            .severalHosts, .invalidContentLength, .conflictingContentLength, .ambiguousFraming:
            400
        case .requestTimeout: 408
        case .bodyTooLarge: 413
        case .targetTooLong: 414
        case .tooManyHeaderFields, .headerFieldTooLarge, .headersTooLarge: 431
        case .unsupportedTransferEncoding: 501
        case .handlerTimeout, .tooManyConnections, .bodyBudgetExhausted: 503
        case .unsupportedVersion: 505
        }
    }

    /// What was wrong, for people.
    public var message: String {
        switch self {
        case .invalidRequestLine: "malformed request line"
        case .invalidTarget: "the request target must be a path starting with '/'"
        case .targetTooLong(let limit): "the request line is longer than \(limit) bytes"
        case .unsupportedVersion: "only HTTP/1.1 and HTTP/1.0 are served"
        case .invalidHeaderField: "malformed header field"
        case .obsoleteLineFolding: "obsolete line folding is not accepted"
        case .invalidHeaderValue(let name): "the value of header field '\(name)' holds a control character"
        case .missingHost: "an HTTP/1.1 request must have a Host header field"
        case .severalHosts: "a request must have one Host header field, not several"
        case .tooManyHeaderFields(let limit): "more than \(limit) header fields"
        case .headerFieldTooLarge(let limit): "a header field is larger than \(limit) bytes"
        case .headersTooLarge(let limit): "the header section is larger than \(limit) bytes"
        case .invalidContentLength(let value): "invalid Content-Length '\(value)'"
        case .conflictingContentLength: "conflicting Content-Length fields"
        case .ambiguousFraming: "Content-Length together with Transfer-Encoding is ambiguous framing"
        case .unsupportedTransferEncoding: "Transfer-Encoding is not supported; send Content-Length"
        case .bodyTooLarge(let limit): "the body is larger than \(limit) bytes"
        case .requestTimeout: "the request did not arrive in time"
        case .handlerTimeout: "the request took too long to answer"
        case .tooManyConnections: "the server has too many open connections"
        case .bodyBudgetExhausted(let limit): "the server is receiving \(limit) bytes of request bodies already; try again shortly"
        }
    }

    /// The seconds a client should wait before sending the request again (`Retry-After`), when it may.
    public var retryAfterSeconds: Int? {
        if case .bodyBudgetExhausted = self { return 1 }
        return nil
    }
}
