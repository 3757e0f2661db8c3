import Glibc
import MastheadClock
import MastheadSockets
import Synchronization

/// One thread's epoll loop: accepts connections from the shared listener, reads requests,
/// hands them to the handler, writes responses, and enforces the timeouts and buffer limits.
///
/// Connections are confined to the loop's thread. Responses come back through a mailbox that any
/// thread may fill; the loop drains it after each handler call and when woken. A connection's
/// pipelined requests are parsed one at a time, in a loop: each waits until the one before it is
/// answered and until the connection's unsent answers are within `maxPendingOutputBytes`; while
/// they are not, the connection is not read past `maxPipelinedBytes`, so one client cannot make
/// the server buffer without bound.
///
/// A request whose body has not all arrived is shown to the head check first (a refused head is
/// answered at once and its body never read); then its body's bytes are reserved in the budget all
/// loops share (`maxBufferedBodyBytes`) as they arrive, read by read, until it is answered: a read
/// that would take the budget past its limit is answered 503 at once. A head alone reserves
/// nothing, so announcing a large body holds no budget that is not sent. When `accept`
/// fails (out of descriptors, say) the listener is not watched for ``acceptBackoffMilliseconds``,
/// so that the loop does not spin on a connection it cannot take.
final class EventLoop {
    let configuration: HTTPServerConfiguration
    let listener: Int32
    let headCheck: HTTPServer.HeadCheck?
    let errorResponse: HTTPServer.ErrorResponse
    let handler: HTTPServer.Handler
    let poller: Poller
    let mailbox: Mailbox
    let state: HTTPServer.State
    private let parser: HTTPRequestParser
    private var connections: [Int32: Connection] = [:]
    private var nextConnectionId: UInt64 = 1
    private var nextRequestId: UInt64 = 1
    private var accepting = true
    /// While accepting is backed off after a failed `accept`: when to watch the listener again.
    private var acceptPausedUntil: Int64?
    private var readBuffer = [UInt8](repeating: 0, count: EventLoop.readChunkBytes)
    /// Connections answered from the mailbox that have buffered requests (or a paused reader, or
    /// an ended stream) to go on with once the current event is handled.
    private var pending: [Connection] = []
    /// The descriptors the last wait found ready (its storage reused from wait to wait).
    private var ready: [Poller.Readiness] = []
    /// The letters being delivered, swapped with the mailbox's (see ``Mailbox/take(into:)``).
    private var letters: [Mailbox.Letter] = []
    /// This loop's largest unsent output and unparsed input of one connection, published to `state` when they grow.
    private var peakPendingOutput = 0
    private var peakBufferedInput = 0

    /// Bytes read from a socket at once.
    static let readChunkBytes = 64 * 1024
    /// A connection's buffers keep up to this much capacity between requests; larger ones are released.
    static let keptCapacityBytes = 64 * 1024
    /// How long the listener is left unwatched after `accept` fails.
    static let acceptBackoffMilliseconds: Int64 = 100
    /// The interim answer to `Expect: 100-continue` (RFC 9110 §15.2.1).
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    init(
        configuration: HTTPServerConfiguration, listener: Int32, headCheck: HTTPServer.HeadCheck?,
        errorResponse: @escaping HTTPServer.ErrorResponse, handler: @escaping HTTPServer.Handler, state: HTTPServer.State
    ) throws(SocketError) {
        self.configuration = configuration
        self.listener = listener
        self.headCheck = headCheck
        self.errorResponse = errorResponse
        self.handler = handler
        self.state = state
        poller = try Poller()
        mailbox = Mailbox(waker: poller.waker)
        parser = HTTPRequestParser(configuration: configuration)
        pending.reserveCapacity(64)
        try poller.add(listener, exclusive: true)
    }

    /// Runs until the server stops and every request in flight has been answered (or the grace period ends).
    func run() {
        mailbox.adoptCurrentThread()
        var stopDeadline: Int64?
        while true {
            do { try poller.wait(milliseconds: 100, into: &ready) } catch { break }
            for readiness in ready {
                if readiness.descriptor == listener {
                    if accepting { acceptAll() }
                    continue
                }
                guard let connection = connections[readiness.descriptor] else { continue }
                if readiness.readable || readiness.closed {
                    // While reading is paused only a hang-up or an error is reported: nothing can be sent either.
                    if connection.readPaused { close(connection) } else { readAvailable(connection) }
                }
                if readiness.writable && connection.isOpen {
                    flush(connection)
                    process(connection)
                }
            }
            deliverMail()
            processPending()
            let now = SystemClock.monotonicMilliseconds()
            checkTimeouts(now: now)
            if accepting, !state.isStopping, let until = acceptPausedUntil, now >= until {
                acceptPausedUntil = nil
                do { try poller.add(listener, exclusive: true) } catch { acceptPausedUntil = now + EventLoop.acceptBackoffMilliseconds }
            }
            if state.isStopping {
                if accepting {
                    accepting = false
                    poller.remove(listener)
                    stopDeadline = now + Int64(state.gracePeriodMilliseconds)
                }
                for connection in Array(connections.values) where !connection.awaitingResponse && connection.output.isEmpty {
                    close(connection)
                }
                if connections.isEmpty || now >= stopDeadline ?? now { break }
            }
        }
        for connection in Array(connections.values) { close(connection) }
    }

    // MARK: Connections

    private func acceptAll() {
        while true {
            let accepted: Int32?
            do { accepted = try ListeningSocket.accept(on: listener) } catch {
                // Out of descriptors (EMFILE, ENFILE) or memory: the pending connection stays
                // pending, and the level-triggered listener would be reported at once again.
                poller.remove(listener)
                acceptPausedUntil = SystemClock.monotonicMilliseconds() + EventLoop.acceptBackoffMilliseconds
                state.counters.countAcceptBackoff()
                return
            }
            guard let fd = accepted else { return }
            let connection = Connection(descriptor: fd, id: nextConnectionId, now: SystemClock.monotonicMilliseconds())
            nextConnectionId += 1
            if connections.count >= configuration.maxConnectionsPerThread {
                connections[fd] = connection
                respond(connection, .tooManyConnections)
                continue
            }
            do { try poller.add(fd) } catch {
                Glibc.close(fd)
                continue
            }
            connections[fd] = connection
        }
    }

    /// Reads what the connection has sent (until it has more than `maxPipelinedBytes` buffered),
    /// then processes it. A closing connection's input is read and dropped, one chunk a turn, so
    /// that closing it does not reset the answer it is being sent.
    private func readAvailable(_ connection: Connection) {
        compactInput(connection)
        while true {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(connection.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                if connection.closing { break }
                if connection.headReported && !connection.awaitingResponse && !reserveBodyRead(connection, bytes: count) {
                    respond(connection, .bodyBudgetExhausted(limit: configuration.maxBufferedBodyBytes))
                    break
                }
                connection.input.append(contentsOf: readBuffer[0..<count])
                connection.lastActivity = SystemClock.monotonicMilliseconds()
                if connection.requestStarted == nil { connection.requestStarted = connection.lastActivity }
                let buffered = connection.input.count - connection.inputStart
                if buffered > peakBufferedInput {
                    peakBufferedInput = buffered
                    state.peakBufferedInput.max(buffered, ordering: .relaxed)
                }
                if count < readBuffer.count || buffered > configuration.maxPipelinedBytes { break }
                continue
            }
            if count == 0 {
                connection.peerClosed = true
                break
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            close(connection)
            return
        }
        process(connection)
    }

    /// Parses and dispatches the connection's buffered requests one after another (in a loop, so a
    /// long pipeline costs no stack) while none is in flight and its unsent answers are within
    /// `maxPendingOutputBytes`; then closes it when its peer is done, or sets whether to read on.
    private func process(_ connection: Connection) {
        parsing: while connection.isOpen && !connection.awaitingResponse && !connection.closing
            && connection.inputStart < connection.input.count
            && connection.output.count - connection.outputStart <= configuration.maxPendingOutputBytes
        {
            let outcome: HTTPRequestParser.Outcome
            do {
                outcome = try connection.input.withUnsafeBufferPointer { bytes throws(HTTPError) in
                    try parser.parse(
                        UnsafeBufferPointer(rebasing: bytes[connection.inputStart...]), headSearchedUpTo: connection.headSearched,
                        headReported: connection.headReported)
                }
            } catch {
                connection.requestIsHead = false
                connection.requestIsHTTP10 = false
                respond(connection, error)
                break parsing
            }
            switch outcome {
            case .incomplete(let searched):
                connection.headSearched = searched
                if connection.requestStarted == nil { connection.requestStarted = SystemClock.monotonicMilliseconds() }
                break parsing
            case .head(let head, let bodyBytes, let received, let expectsContinue):
                connection.headReported = true
                connection.announcedBodyBytes = bodyBytes
                connection.requestIsHead = head.method == "HEAD"
                connection.requestIsHTTP10 = false
                if var refusal = headCheck?(head) {
                    // Answered before its body, which is never read: the connection closes after it.
                    refusal.closeConnection = true
                    respond(connection, refusal)
                } else if !reserveBody(connection, bytes: received) {
                    respond(connection, .bodyBudgetExhausted(limit: configuration.maxBufferedBodyBytes))
                } else if expectsContinue {
                    connection.output.append(contentsOf: EventLoop.continueResponse)
                    flush(connection)
                }
                break parsing
            case .request(let request, let consumed, let isHTTP10):
                if !connection.headReported && !request.body.isEmpty && !reserveBody(connection, bytes: request.body.count) {
                    connection.requestIsHead = false
                    connection.requestIsHTTP10 = false
                    respond(connection, .bodyBudgetExhausted(limit: configuration.maxBufferedBodyBytes))
                    break parsing
                }
                connection.inputStart += consumed
                connection.headSearched = 0
                connection.headReported = false
                connection.requestStarted = nil
                if connection.inputStart == connection.input.count { resetInput(connection) }
                connection.awaitingResponse = true
                connection.requestId = nextRequestId
                nextRequestId += 1
                connection.keepAlive = request.keepAlive
                connection.requestIsHead = request.method == "HEAD"
                connection.requestIsHTTP10 = isHTTP10
                connection.handlerStarted = SystemClock.monotonicMilliseconds()
                state.inFlight.add(1, ordering: .relaxed)
                handler(request, HTTPResponder(mailbox: mailbox, descriptor: connection.descriptor, requestId: connection.requestId))
                deliverMail()
            }
        }
        guard connection.isOpen else { return }
        if connection.peerClosed && !connection.awaitingResponse && connection.output.isEmpty {
            // Everything it sent that forms a request is answered; the rest can never be completed.
            close(connection)
            return
        }
        updateInterest(connection)
    }

    /// Processes the connections answered from the mailbox, until none is left (processing one may answer others).
    private func processPending() {
        while let connection = pending.popLast() { process(connection) }
    }

    private func deliverMail() {
        mailbox.take(into: &letters)
        defer { letters.removeAll(keepingCapacity: true) }
        for letter in letters {
            guard let connection = connections[letter.descriptor], connection.requestId == letter.requestId, connection.awaitingResponse else { continue }
            state.inFlight.subtract(1, ordering: .relaxed)
            connection.awaitingResponse = false
            connection.handlerStarted = nil
            releaseBody(connection)
            respond(connection, letter.response)
            if connection.isOpen && (connection.inputStart < connection.input.count || connection.peerClosed || connection.readPaused) {
                pending.append(connection)
            }
        }
    }

    /// Answers with the server's response to an error (with `Retry-After` when the error has one);
    /// the connection closes after it.
    private func respond(_ connection: Connection, _ error: HTTPError) {
        var response = errorResponse(error)
        response.closeConnection = true
        if let seconds = error.retryAfterSeconds, !response.headers.contains(where: { $0.name.lowercased() == "retry-after" }) {
            response.headers.append(("Retry-After", "\(seconds)"))
        }
        if case .bodyBudgetExhausted = error { state.counters.countBodyBudgetRefusal() }
        respond(connection, response)
    }

    /// Adds `bytes` of the connection's request body to its reservation in the budget all loops
    /// share; false, reserving nothing more, when they would take it past `maxBufferedBodyBytes`.
    private func reserveBody(_ connection: Connection, bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        let total = state.bufferedBodyBytes.add(bytes, ordering: .relaxed).newValue
        guard total <= configuration.maxBufferedBodyBytes else {
            state.bufferedBodyBytes.subtract(bytes, ordering: .relaxed)
            return false
        }
        connection.reservedBodyBytes += bytes
        return true
    }

    /// Reserves the body bytes among `bytes` just read after a reported head: those up to its
    /// `Content-Length` (the rest are the next request's); false when the budget cannot take them.
    private func reserveBodyRead(_ connection: Connection, bytes: Int) -> Bool {
        reserveBody(connection, bytes: min(bytes, connection.announcedBodyBytes - connection.reservedBodyBytes))
    }

    /// Gives the connection's reserved body bytes back to the budget (its request is answered, or it closed).
    private func releaseBody(_ connection: Connection) {
        guard connection.reservedBodyBytes > 0 else { return }
        state.bufferedBodyBytes.subtract(connection.reservedBodyBytes, ordering: .relaxed)
        connection.reservedBodyBytes = 0
    }

    private func respond(_ connection: Connection, _ response: HTTPResponse) {
        let keepAlive = connection.keepAlive && !response.closeConnection && !state.isStopping
        if !keepAlive {
            connection.closing = true
            resetInput(connection)
        }
        compactOutput(connection)
        let field: HTTPResponse.ConnectionField = keepAlive ? (connection.requestIsHTTP10 ? .keepAlive : .none) : .close
        response.write(into: &connection.output, connection: field, includeBody: !connection.requestIsHead)
        let unsent = connection.output.count - connection.outputStart
        if unsent > peakPendingOutput {
            peakPendingOutput = unsent
            state.peakPendingOutput.max(unsent, ordering: .relaxed)
        }
        flush(connection)
    }

    /// Sends what the socket takes; watches for writability while output remains, closes a
    /// closing connection once all is sent.
    private func flush(_ connection: Connection) {
        while connection.outputStart < connection.output.count {
            let count = connection.output.withUnsafeBytes { bytes in
                send(connection.descriptor, bytes.baseAddress! + connection.outputStart, bytes.count - connection.outputStart, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                connection.outputStart += count
                connection.lastActivity = SystemClock.monotonicMilliseconds()
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                watch(connection, reading: !connection.readPaused, writing: true)
                return
            }
            close(connection)
            return
        }
        if connection.output.capacity > EventLoop.keptCapacityBytes {
            connection.output = []
        } else {
            connection.output.removeAll(keepingCapacity: true)
        }
        connection.outputStart = 0
        watch(connection, reading: !connection.readPaused, writing: false)
        if connection.closing { close(connection) }
    }

    /// Reads a connection unless its peer has ended its stream, its unsent answers are above
    /// `maxPendingOutputBytes`, or it has more than `maxPipelinedBytes` buffered while a request is
    /// in flight.
    private func updateInterest(_ connection: Connection) {
        let outputFull = connection.output.count - connection.outputStart > configuration.maxPendingOutputBytes
        let inputFull = connection.awaitingResponse && connection.input.count - connection.inputStart > configuration.maxPipelinedBytes
        watch(connection, reading: !connection.peerClosed && !outputFull && !inputFull, writing: connection.watchingWrites)
    }

    /// Changes what epoll reports for the connection, when that changes.
    private func watch(_ connection: Connection, reading: Bool, writing: Bool) {
        guard reading == connection.readPaused || writing != connection.watchingWrites else { return }
        connection.readPaused = !reading
        connection.watchingWrites = writing
        try? poller.modify(connection.descriptor, readable: reading, writable: writing)
    }

    /// Drops the parsed bytes before reading more, once they are at least as many as those left.
    private func compactInput(_ connection: Connection) {
        guard connection.inputStart > 0, connection.inputStart >= connection.input.count - connection.inputStart else { return }
        connection.input.removeSubrange(0..<connection.inputStart)
        connection.inputStart = 0
    }

    /// Drops the sent bytes before adding an answer, once they are at least as many as those left.
    private func compactOutput(_ connection: Connection) {
        guard connection.outputStart > 0, connection.outputStart >= connection.output.count - connection.outputStart else { return }
        connection.output.removeSubrange(0..<connection.outputStart)
        connection.outputStart = 0
    }

    /// Empties the input (all parsed, or no longer wanted).
    private func resetInput(_ connection: Connection) {
        if connection.input.capacity > EventLoop.keptCapacityBytes {
            connection.input = []
        } else {
            connection.input.removeAll(keepingCapacity: true)
        }
        connection.inputStart = 0
        connection.headSearched = 0
    }

    private func close(_ connection: Connection) {
        guard connection.isOpen else { return }
        connection.isOpen = false
        if connection.awaitingResponse { state.inFlight.subtract(1, ordering: .relaxed) }
        releaseBody(connection)
        connections[connection.descriptor] = nil
        poller.remove(connection.descriptor)
        Glibc.close(connection.descriptor)
    }

    // MARK: Timeouts

    private func checkTimeouts(now: Int64) {
        // Over the connections as they are now: closing one copies the table (the loop holds it) rather than change it under the loop.
        for connection in connections.values {
            if connection.awaitingResponse, let started = connection.handlerStarted,
                now - started > Int64(configuration.handlerTimeoutMilliseconds)
            {
                state.inFlight.subtract(1, ordering: .relaxed)
                connection.awaitingResponse = false
                releaseBody(connection)
                respond(connection, .handlerTimeout)
            } else if !connection.awaitingResponse, connection.output.isEmpty, let started = connection.requestStarted,
                now - started > Int64(configuration.readTimeoutMilliseconds)
            {
                connection.requestIsHead = false
                connection.requestIsHTTP10 = false
                respond(connection, .requestTimeout)
            } else if !connection.output.isEmpty, now - connection.lastActivity > Int64(configuration.readTimeoutMilliseconds) {
                close(connection)  // a reader too slow to take its response
            } else if !connection.awaitingResponse, connection.output.isEmpty, connection.requestStarted == nil,
                now - connection.lastActivity > Int64(configuration.idleTimeoutMilliseconds)
            {
                close(connection)
            }
        }
    }
}
