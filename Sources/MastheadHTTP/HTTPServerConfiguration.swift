/// Every limit of the HTTP server, with defaults after hummingbird's.
public struct HTTPServerConfiguration: Sendable, Hashable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port: UInt16 = 8080
    /// Event-loop threads; each owns an epoll instance and its connections.
    public var threads = 2
    /// The request line (method, target, version); longer is 414.
    public var maxRequestLineBytes = 8 * 1024
    /// One header field; longer is 431.
    public var maxHeaderFieldBytes = 80 * 1024
    /// The whole header section; longer is 431.
    public var maxHeaderListBytes = 80 * 1024
    /// Header fields per request; more is 431.
    public var maxHeaderCount = 1000
    /// The request body; larger is 413.
    public var maxBodyBytes = 2 * 1024 * 1024
    /// The body bytes received of requests being received or answered, all connections together
    /// (counted as they arrive): a request whose bytes would take them past it is answered 503
    /// with `Retry-After: 1`, the rest of its body unread.
    public var maxBufferedBodyBytes = 64 * 1024 * 1024
    /// A connection with no request in progress is closed after this long.
    public var idleTimeoutMilliseconds = 60_000
    /// A request must arrive completely within this long of its first byte, else 408.
    public var readTimeoutMilliseconds = 10_000
    /// A handler must answer within this long, else 503.
    public var handlerTimeoutMilliseconds = 30_000
    /// Connections per event loop; past it new ones get 503 and are closed.
    public var maxConnectionsPerThread = 10_000
    /// Response bytes a connection may have waiting for its reader: above it the connection is
    /// neither read nor parsed further until its output drains below it.
    public var maxPendingOutputBytes = 1024 * 1024
    /// Pipelined request bytes a connection may have buffered while a request is in flight: past
    /// it the connection is not read until it catches up (requests are parsed one at a time).
    public var maxPipelinedBytes = 64 * 1024

    /// The defaults.
    public init() {}
}
