/// One client connection's buffers and state, owned by its loop.
final class Connection {
    let descriptor: Int32
    let id: UInt64
    /// Received bytes; those before `inputStart` are parsed.
    var input: [UInt8] = []
    var inputStart = 0
    /// How far past `inputStart` the end of the current request's header section has been looked for.
    var headSearched = 0
    /// Whether the current request's head has been checked before its body (and its
    /// `Expect: 100-continue` answered).
    var headReported = false
    /// The bytes of its request's body reserved in the server's body budget as they arrive, until
    /// it is answered.
    var reservedBodyBytes = 0
    /// The `Content-Length` of the request whose head was reported.
    var announcedBodyBytes = 0
    /// Bytes to send; those before `outputStart` are sent.
    var output: [UInt8] = []
    var outputStart = 0
    var awaitingResponse = false
    /// The request in flight (unique within the loop), to match its response.
    var requestId: UInt64 = 0
    var keepAlive = true
    /// The request being answered is HEAD (its answer has no body) or HTTP/1.0 (keep-alive is said).
    var requestIsHead = false
    var requestIsHTTP10 = false
    var closing = false
    var peerClosed = false
    var isOpen = true
    /// What epoll reports for it: reading stops while paused, writing is watched while output waits.
    var readPaused = false
    var watchingWrites = false
    var lastActivity: Int64
    /// When the first byte of the request being received arrived (or waiting for it began).
    var requestStarted: Int64?
    var handlerStarted: Int64?

    init(descriptor: Int32, id: UInt64, now: Int64) {
        self.descriptor = descriptor
        self.id = id
        lastActivity = now
    }
}
