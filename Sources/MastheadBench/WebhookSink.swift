import CEpoll
import Foundation
import Glibc
import MastheadClock
import Synchronization

/// A webhook endpoint on loopback for the soak run: answers every POST 200 at once and notes,
/// for each delivery, when it arrived and the `userId` its event names. A thread per connection
/// (the service opens a few keep-alive ones); a request whose head passes 16 KiB or whose body
/// passes 1 MiB closes its connection.
final class WebhookSink: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex(Received())

    /// What arrived since the last ``take()``.
    struct Received {
        /// Deliveries (any event, including a second delivery of one).
        var deliveries = 0
        /// Distinct `Masthead-Event-Id`s, over the whole run.
        var eventIds: Set<String> = []
        /// Users some event named, over the whole run.
        var users: Set<String> = []
        /// Arrival instants (``SystemClock/seconds()``) of the first event naming each user, for
        /// the users first named since the last ``take()``.
        var firstArrival: [String: Double] = [:]
    }

    /// Listens on a free port of 127.0.0.1 and starts accepting.
    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard descriptor >= 0, bound, listen(descriptor, 64) == 0 else { fail("cannot listen for webhooks: errno \(errno)") }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The deliveries since the last call (the event ids and arrivals are kept).
    func take() -> (deliveries: Int, events: Int, firstArrival: [String: Double]) {
        state.withLock { received in
            defer {
                received.deliveries = 0
                received.firstArrival = [:]
            }
            return (received.deliveries, received.eventIds.count, received.firstArrival)
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    /// Reads requests on one connection until it closes, answering each 200.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            guard let headEnd = buffer.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A]) else {
                guard buffer.count <= 16_384 else { return }
                let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[0..<count]
                continue
            }
            var contentLength = 0
            var eventId = ""
            for line in String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingPrefix(" ")
                switch parts[0].lowercased() {
                case "content-length": contentLength = Int(value) ?? -1
                case "masthead-event-id": eventId = String(value)
                default: break
                }
            }
            guard (0...1_048_576).contains(contentLength) else { return }
            while buffer.count < headEnd.upperBound + contentLength {
                let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[0..<count]
            }
            let arrived = SystemClock.seconds()
            let body = buffer[headEnd.upperBound..<(headEnd.upperBound + contentLength)]
            buffer.removeSubrange(0..<(headEnd.upperBound + contentLength))
            let user = WebhookSink.userId(in: body)
            state.withLock { received in
                received.deliveries += 1
                received.eventIds.insert(eventId)
                if let user, received.users.insert(user).inserted { received.firstArrival[user] = arrived }
            }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
            guard answer.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == answer.count else { return }
        }
    }

    /// The string value of the event's `"userId"` member (the project's writer leaves no space
    /// after the colon), when there is one without escapes.
    static func userId(in body: ArraySlice<UInt8>) -> String? {
        let key = Array(#""userId":""#.utf8)
        guard let start = body.firstRange(of: key)?.upperBound, let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }
}
