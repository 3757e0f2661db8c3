import CEpoll
import Foundation
import Glibc

/// The download check's peer: a bare HTTP responder on one epoll thread that answers every
/// request with one fixed response, keeping the connection open. It does not parse: a request is
/// whatever ends in a blank line (`\r\n\r\n`), found byte by byte across reads; the answers to
/// the requests of one read go out in one `send`.
///
/// It stands for the least a server on the same sockets can do, so the check's requests per second
/// over its own say what Masthead's parsing, routing, deciding and writing cost.
final class BareResponder: @unchecked Sendable {
    /// The loopback port it listens on.
    let port: Int
    private let listener: Int32
    private let epoll: Int32
    private let stopEvent: Int32
    private let response: [UInt8]
    private let finished = DispatchSemaphore(value: 0)
    /// The kernel id of its thread, for the thread's CPU time (``CPUTime/thread(_:)``).
    private(set) var threadId: Int32 = 0

    /// One connection's state: how much of `\r\n\r\n` its last bytes matched, and answers the
    /// socket did not take yet.
    private struct Peer {
        var matched = 0
        var unsent: [UInt8] = []
    }

    /// Listens on a free loopback port and starts answering `response` (a whole HTTP/1.1 response).
    init(response: [UInt8]) {
        self.response = response
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { fail("bare responder: socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 1024) == 0 else { fail("bare responder: bind/listen: \(String(cString: strerror(errno)))") }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        stopEvent = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard epoll >= 0, stopEvent >= 0 else { fail("bare responder: epoll/eventfd: \(String(cString: strerror(errno)))") }
        watch(listener, writable: false, operation: EPOLL_CTL_ADD)
        watch(stopEvent, writable: false, operation: EPOLL_CTL_ADD)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            threadId = currentThreadId()
            started.signal()
            run()
            finished.signal()
        }
        thread.name = "bare-responder"
        thread.start()
        started.wait()
    }

    /// Stops answering, closes every connection and the listener, and waits for the thread.
    func stop() {
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
        finished.wait()
        close(listener)
        close(epoll)
        close(stopEvent)
    }

    private func watch(_ descriptor: Int32, writable: Bool, operation: Int32) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = descriptor
        _ = epoll_ctl(epoll, operation, descriptor, &event)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var peers: [Int32: Peer] = [:]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var answers: [UInt8] = []
        answers.reserveCapacity(response.count * 16)
        defer { for descriptor in peers.keys { close(descriptor) } }
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), -1) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            for index in 0..<Int(count) {
                let descriptor = events[index].data.fd
                let flags = events[index].events
                if descriptor == stopEvent { return }
                if descriptor == listener {
                    while true {
                        let client = cepoll_accept(listener)
                        if client < 0 { break }
                        var yes: Int32 = 1
                        _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                        peers[client] = Peer()
                        watch(client, writable: false, operation: EPOLL_CTL_ADD)
                    }
                    continue
                }
                guard var peer = peers[descriptor] else { continue }
                var open = true
                if flags & EPOLLOUT.rawValue != 0 { open = send(&peer.unsent, on: descriptor) }
                if open && flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                    open = answer(descriptor, &peer, buffer: &buffer, answers: &answers)
                }
                if open {
                    if flags & EPOLLOUT.rawValue != 0 || !peer.unsent.isEmpty { watch(descriptor, writable: !peer.unsent.isEmpty, operation: EPOLL_CTL_MOD) }
                    peers[descriptor] = peer
                } else {
                    peers[descriptor] = nil
                    close(descriptor)
                }
            }
        }
    }

    /// Reads what the connection sent and answers each request it ends; false when it is to close.
    private func answer(_ descriptor: Int32, _ peer: inout Peer, buffer: inout [UInt8], answers: inout [UInt8]) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return false }
            if count < 0 { return errno == EINTR ? true : errno == EAGAIN || errno == EWOULDBLOCK }
            var requests = 0
            for byte in buffer[0..<count] {
                let expected: UInt8 = peer.matched % 2 == 0 ? 0x0D : 0x0A
                if byte == expected {
                    peer.matched += 1
                    if peer.matched == 4 {
                        requests += 1
                        peer.matched = 0
                    }
                } else {
                    peer.matched = byte == 0x0D ? 1 : 0
                }
            }
            if requests > 0 {
                answers.removeAll(keepingCapacity: true)
                for _ in 0..<requests { answers.append(contentsOf: response) }
                if peer.unsent.isEmpty {
                    var pending = answers
                    guard send(&pending, on: descriptor) else { return false }
                    peer.unsent = pending
                } else {
                    peer.unsent.append(contentsOf: answers)
                }
            }
            if count < buffer.count { return true }
        }
    }

    /// Sends what the socket takes of `bytes`, leaving the rest in it; false when the connection failed.
    private func send(_ bytes: inout [UInt8], on descriptor: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return false
        }
        bytes.removeSubrange(0..<sent)
        return true
    }
}

/// The kernel id of the calling thread, from the `/proc/thread-self` link (`PID/task/TID`); 0
/// when it cannot be read.
private func currentThreadId() -> Int32 {
    var link = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &link, link.count - 1)
    guard count > 0 else { return 0 }
    let text = String(decoding: link[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.split(separator: "/").last.flatMap { Int32($0) } ?? 0
}

/// Measures the bare responder answering the download check's own response bytes with the same
/// wrk settings as the check's `wrk -t1` run, and prints both with their ratios: of their rates,
/// latencies, and CPU time a request (`checkCPU`, the server's over the check's run, against the
/// responder thread's over its own), which says what rate the check's own work allows whatever
/// else the machine runs.
func compareWithBareResponder(checkURL: String, arguments: [String], check: WrkResult, checkCPU: CPUTime?) {
    guard let response = fetchWholeResponse(checkURL) else { fail("the download check did not answer 200") }
    let bare = BareResponder(response: response)
    defer { bare.stop() }
    let before = CPUTime.thread(bare.threadId)
    let peer = wrk(arguments + ["http://127.0.0.1:\(bare.port)/v1/users/reader-1/issues/the-monthly/2020-06?at=2020-12-01T00:00:00Z"])
    let peerCPU = CPUTime.thread(bare.threadId).flatMap { after in before.map { after - $0 } }
    print("")
    print("The download check against a bare epoll responder answering the same \(response.count) bytes (one thread, no parsing), `wrk \(arguments.joined(separator: " "))`:")
    print("")
    print("| | requests/s | p50 | p99 | CPU µs a request (user + system) |")
    print("|---|---|---|---|---|")
    print("| download check (1 event loop) | \(check.requestsPerSecond) | \(check.p50) | \(check.p99) | \(perRequest(checkCPU, check)) |")
    print("| bare responder | \(peer.requestsPerSecond) | \(peer.p50) | \(peer.p99) | \(perRequest(peerCPU, peer)) |")
    func ratio(_ mine: Double?, _ theirs: Double?) -> String {
        guard let mine, let theirs, theirs > 0 else { return "?" }
        return String(format: "%.2f×", mine / theirs)
    }
    let cpuRatio = ratio(cpuMicroseconds(peerCPU, peer), cpuMicroseconds(checkCPU, check))
    print(
        "| check / bare | \(ratio(Double(check.requestsPerSecond), Double(peer.requestsPerSecond))) | \(ratio(check.p50Microseconds, peer.p50Microseconds)) | \(ratio(check.p99Microseconds, peer.p99Microseconds)) | bare / check \(cpuRatio): the rate the check's CPU allows |"
    )
}

/// The CPU time a request of a wrk run took, in microseconds; nil without both figures.
private func cpuMicroseconds(_ cpu: CPUTime?, _ run: WrkResult) -> Double? {
    guard let cpu, let requests = run.requests, requests > 0 else { return nil }
    return cpu.total * 1e6 / Double(requests)
}

/// "total (user + system)" in microseconds a request, or "?".
private func perRequest(_ cpu: CPUTime?, _ run: WrkResult) -> String {
    guard let cpu, let requests = run.requests, requests > 0 else { return "?" }
    let scale = 1e6 / Double(requests)
    return String(format: "%.2f (%.2f + %.2f)", cpu.total * scale, cpu.user * scale, cpu.system * scale)
}

/// The whole response (head and body, as sent) to a GET of `url` on a loopback port with the
/// bench's API token, read over a plain socket; nil unless it is a 200.
private func fetchWholeResponse(_ url: String) -> [UInt8]? {
    guard let parts = URLComponents(string: url), let port = parts.port else { fail("cannot read the URL \(url)") }
    let target = parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { fail("cannot connect to \(url): \(String(cString: strerror(errno)))") }
    let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(BenchServer.apiToken)\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else { fail("cannot send to \(url)") }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        if let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound, whole(received, headEnd: end) { break }
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { fail("the answer from \(url) ended early") }
        received += chunk[0..<count]
    }
    return received.starts(with: Array("HTTP/1.1 200 ".utf8)) ? received : nil
}

/// Whether `bytes` holds the whole response whose head ends at `headEnd`, by its `Content-Length`.
private func whole(_ bytes: [UInt8], headEnd: Int) -> Bool {
    let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
    guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
        let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
    else { return true }
    return bytes.count >= headEnd + length
}

extension WrkResult {
    /// The median and 99th percentile latency in microseconds (wrk writes `271.00us`, `1.20ms` or `2.00s`).
    var p50Microseconds: Double? { WrkResult.microseconds(p50) }
    var p99Microseconds: Double? { WrkResult.microseconds(p99) }

    static func microseconds(_ text: String) -> Double? {
        for (unit, scale) in [("us", 1.0), ("ms", 1_000.0), ("s", 1_000_000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}
