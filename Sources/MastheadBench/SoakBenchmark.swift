import Dispatch
import Foundation
import Glibc
import Masthead
import MastheadClock
import MastheadFormats
import MastheadSynthetic
import Synchronization

/// Soak: starts the release `masthead serve` on a fresh database (loopback only) and drives it
/// for `--minutes N` with mixed traffic, sampling the server as it goes:
///
/// - download checks (two clients, about 1,000 a second each) for users stored so far;
/// - receipt posts for new users (about 100 a second; synthetic receipts of `SyntheticPopulation`);
/// - version 1 notifications, each a new transaction (about 300 a second);
/// - four slow clients trickling each request 8 bytes every 250 ms;
/// - two pipelining clients that write 1,000 requests a second each and never read;
/// - 32 connections that never send anything (opened again when the server closes them).
///
/// Every sample (10 s for runs of up to five minutes, else a minute) prints answers per second,
/// the p99 latency of the checks, posts and notifications, errors, the server's resident memory
/// (VmRSS) and the size of its WAL file; a table over time follows at the end. Every client loop
/// is bounded by the run's time and a request count.
///
/// With `--webhooks`, the service also delivers its events to a ``WebhookSink``: each sample then
/// gives the events delivered per second and the latency from the start of the receipt post that
/// made a user's change to the arrival of that user's first event (an upper bound of commit →
/// arrival), p50 and p99; the run waits up to a minute at the end for the last ones.
func runSoakBenchmark(_ options: BenchOptions, masthead: String) throws {
    let duration = Double(options.minutes) * 60
    let sampleSeconds = options.minutes <= 5 ? 10.0 : 60.0
    guard let catalogData = FileManager.default.contents(atPath: options.catalog + "/catalog.json") else { fail("cannot read \(options.catalog)/catalog.json") }
    let catalog = try CatalogDecoder().decode([UInt8](catalogData))
    let issues = catalog.publications.flatMap { publication in publication.issues.map { "/\(publication.id)/\($0.id)" } }
    let first = catalog.publications.compactMap { $0.issues.first?.published }.min() ?? Instant(milliseconds: 1_577_836_800_000)
    let population = SyntheticPopulation(catalog: catalog, start: first)
    var random = SeededGenerator(seed: options.seed)
    let receipts = (0..<500).map { population.receipt(user: $0, random: &random) }

    // SIGINT and SIGTERM end the run early (with its table) rather than leave the server running.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGINT)
    sigaddset(&stopSignals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    let sink = options.webhooks ? try WebhookSink() : nil
    let webhookSettings = sink.map { #", "webhookURLs": ["http://127.0.0.1:\#($0.port)/masthead-events"]"# } ?? ""
    let server = try BenchServer.start(
        options, masthead: masthead, name: "soak", configuration: #""threads": \#(options.loops), "maxCachedUsers": 2000"# + webhookSettings,
        environment: sink == nil ? [:] : ["MASTHEAD_WEBHOOK_SECRET": "bench-webhook-secret"])
    let webhooks = WebhookLatencies()
    let recorder = SoakRecorder()
    let signals = stopSignals
    let waiter = Thread {
        var set = signals
        var received: Int32 = 0
        if sigwait(&set, &received) == 0 { recorder.stopped.store(true, ordering: .relaxed) }
    }
    waiter.start()
    let port = server.port
    let started = SystemClock.seconds()
    let maxRequests = Int(duration) * 5_000
    print("soak: \(options.minutes) min against pid \(server.process.processIdentifier) on 127.0.0.1:\(port), database \(server.database)")

    let clients = DispatchGroup()
    func client(_ name: String, _ body: @escaping @Sendable () -> Void) {
        clients.enter()
        let thread = Thread {
            body()
            clients.leave()
        }
        thread.name = name
        thread.start()
    }
    for index in 0..<2 {
        client("checks-\(index)") {
            var random = SeededGenerator(seed: options.seed &+ UInt64(index))
            let loop = SoakLoop(port: port, recorder: recorder, kind: .check, perSecond: 1_000, maxRequests: maxRequests)
            loop.run { _ in
                let users = recorder.users.load(ordering: .relaxed)
                let user = users > 0 ? random.below(users) : 0
                return SoakConnection.request("GET", "/v1/users/soak-user-\(user)/issues\(issues[random.below(issues.count)])?at=2021-01-01T00:00:00Z")
            }
        }
    }
    client("receipts") {
        let loop = SoakLoop(port: port, recorder: recorder, kind: .receipt, perSecond: 100, maxRequests: maxRequests) { user, started in
            recorder.users.store(user + 1, ordering: .relaxed)
            if sink != nil { webhooks.posted("soak-user-\(user)", at: started) }
        }
        loop.run { user in SoakConnection.request("POST", "/v1/users/soak-user-\(user)/receipts", body: receipts[user % receipts.count]) }
    }
    client("notifications") {
        let loop = SoakLoop(port: port, recorder: recorder, kind: .notification, perSecond: 300, maxRequests: maxRequests)
        loop.run { index in
            let body = #"{"notification_type":"DID_RENEW","password":"\#(BenchServer.sharedSecret)","environment":"PROD","unified_receipt":{"status":0,"environment":"Production","latest_receipt_info":[{"transaction_id":"soak-n\#(index)","original_transaction_id":"soak-o\#(index)","product_id":"com.example.monthly","purchase_date_ms":"1582200000000","expires_date_ms":"1584792000000"}]}}"#
            return SoakConnection.request("POST", "/v1/notifications/app-store", body: Array(body.utf8))
        }
    }
    client("slow") { trickle(port: port, recorder: recorder, connections: 4, request: SoakConnection.request("GET", "/v1/users/soak-user-0/issues\(issues[0])")) }
    client("pipelining") { pipeline(port: port, recorder: recorder, connections: 2, request: SoakConnection.request("GET", "/v1/users/soak-user-0/issues\(issues[0])")) }
    client("idle") { holdIdle(port: port, recorder: recorder, connections: 32) }

    // Samples until the end of the run.
    var rows: [String] = []
    var webhookRows: [String] = []
    var statuses: [Int: Int] = [:]
    var last = started
    while last < started + duration && !recorder.isStopped {
        let wake = min(last + sampleSeconds, started + duration)
        while SystemClock.seconds() < wake && !recorder.isStopped { usleep(UInt32(min(200_000, max(1_000, (wake - SystemClock.seconds()) * 1e6)))) }
        let now = SystemClock.seconds()
        let interval = recorder.take()
        statuses.merge(interval.statuses, uniquingKeysWith: +)
        let row = SoakSample(elapsed: now - started, seconds: now - last, interval: interval, rssKiB: residentKiB(server.process.processIdentifier), walBytes: fileSize(server.database + "-wal"))
        print(row.line)
        rows.append(row.tableRow)
        if let sink {
            let line = webhooks.sample(sink.take(), elapsed: now - started, seconds: now - last)
            print(line.text)
            webhookRows.append(line.row)
        }
        last = now
        fflush(nil)
        if !server.process.isRunning {
            let how = server.process.terminationReason == .uncaughtSignal ? "by signal" : "with status"
            print("soak: the server ended \(how) \(server.process.terminationStatus); stopping the run")
            break
        }
    }
    recorder.stopped.store(true, ordering: .relaxed)
    if clients.wait(timeout: .now() + 30) == .timedOut { print("soak: some clients did not stop within 30 s") }
    if let sink {
        // The last events: until every posted user's has arrived, or a minute.
        let ending = SystemClock.seconds()
        // Until nothing has arrived for 3 s (the outbox is drained), or a minute: some synthetic
        // receipts give their reader nothing to report, so not every posted user gets an event.
        var drained = webhooks.sample(sink.take(), elapsed: ending - started, seconds: 1)
        var quietSince = SystemClock.seconds()
        while drained.waiting > 0 && SystemClock.seconds() < ending + 60 && SystemClock.seconds() < quietSince + 3 {
            usleep(100_000)
            let received = sink.take()
            if received.deliveries > 0 { quietSince = SystemClock.seconds() }
            drained = webhooks.sample(received, elapsed: SystemClock.seconds() - started, seconds: 1)
        }
        print("soak: \(drained.waiting) posted users without an event \(Int(SystemClock.seconds() - ending)) s after the traffic stopped (nothing arrived in the last 3 s: their receipts gave them nothing to report)")
    }
    server.stop()
    print("")
    print("| t (s) | answers/s | checks/s | receipts/s | notifications/s | slow/s | p99 ms | errors | pipelined unread | idle closed | RSS MiB | WAL MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows { print(row) }
    if let sink {
        print("")
        print("| t (s) | users' first events/s | deliveries/s | latency p50 ms | latency p99 ms | posted users without an event |")
        print("|---|---|---|---|---|---|")
        for row in webhookRows { print(row) }
        print(webhooks.summary(events: sink.take().events))
    }
    print("statuses: " + statuses.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : String($0.key)): \($0.value)" }.joined(separator: ", "))
}

/// One sample of the soak run.
struct SoakSample {
    let elapsed: Double
    let seconds: Double
    let interval: SoakRecorder.Interval
    let rssKiB: Int
    let walBytes: Int

    var p99Milliseconds: Double {
        guard !interval.latencies.isEmpty else { return 0 }
        let sorted = interval.latencies.sorted()
        return sorted[Int(Double(sorted.count - 1) * 0.99)] * 1000
    }

    func rate(_ count: Int) -> String { String(format: "%.0f", Double(count) / seconds) }
    var rss: String { String(format: "%.1f", Double(rssKiB) / 1024) }
    var wal: String { String(format: "%.1f", Double(walBytes) / 1_048_576) }

    var line: String {
        String(format: "%5.0fs  %@ answers/s (checks %@, receipts %@, notifications %@, slow %@)  p99 %.2f ms  errors %d  pipelined %d  idle closed %d  RSS %@ MiB  WAL %@ MiB",
            elapsed, rate(interval.answered), rate(interval.checks), rate(interval.receipts), rate(interval.notifications), rate(interval.slow),
            p99Milliseconds, interval.errors, interval.pipelined, interval.idleClosed, rss, wal)
    }

    var tableRow: String {
        "| \(Int(elapsed.rounded())) | \(rate(interval.answered)) | \(rate(interval.checks)) | \(rate(interval.receipts)) | \(rate(interval.notifications)) | "
            + "\(rate(interval.slow)) | \(String(format: "%.2f", p99Milliseconds)) | \(interval.errors) | \(interval.pipelined) | \(interval.idleClosed) | \(rss) | \(wal) |"
    }
}

/// A client that sends one request at a time on a keep-alive connection, paced to a rate.
struct SoakLoop {
    let port: Int
    let recorder: SoakRecorder
    let kind: SoakRecorder.Kind
    let perSecond: Double
    let maxRequests: Int
    /// Called with the request's number and the instant (``SystemClock/seconds()``) it started
    /// after a 2xx answer.
    var succeeded: (Int, Double) -> Void = { _, _ in }

    /// Sends `request(n)` for n = 0, 1, … until the run stops or `maxRequests` were sent.
    func run(_ request: (Int) -> [UInt8]) {
        var connection: SoakConnection?
        var scheduled = SystemClock.seconds()
        for number in 0..<maxRequests {
            if recorder.isStopped { return }
            // Paced; a client that fell more than a second behind starts afresh rather than bursting.
            scheduled += 1 / perSecond
            let now = SystemClock.seconds()
            if scheduled > now { usleep(UInt32((scheduled - now) * 1e6)) } else if now - scheduled > 1 { scheduled = now }
            if connection == nil { connection = SoakConnection(port: port) }
            let started = SystemClock.seconds()
            let status = connection.flatMap { $0.send(request(number)[...]) ? $0.readResponse() : nil }
            recorder.record(kind, status: status, seconds: SystemClock.seconds() - started)
            if let status, (200..<300).contains(status) { succeeded(number, started) }
            if status == nil {
                connection = nil
                usleep(10_000)
            }
        }
    }
}

/// Slow clients: each sends its request 8 bytes every 250 ms, then reads the answer.
func trickle(port: Int, recorder: SoakRecorder, connections count: Int, request: [UInt8]) {
    var connections: [SoakConnection?] = Array(repeating: nil, count: count)
    var offsets = Array(repeating: 0, count: count)
    var started = Array(repeating: SystemClock.seconds(), count: count)
    while !recorder.isStopped {
        for index in 0..<count {
            if connections[index] == nil {
                connections[index] = SoakConnection(port: port)
                offsets[index] = 0
                started[index] = SystemClock.seconds()
            }
            guard let connection = connections[index] else { continue }
            let end = min(request.count, offsets[index] + 8)
            guard connection.send(request[offsets[index]..<end]) else {
                recorder.record(.slow, status: nil, seconds: SystemClock.seconds() - started[index])
                connections[index] = nil
                continue
            }
            offsets[index] = end
            if end == request.count {
                let status = connection.readResponse()
                recorder.record(.slow, status: status, seconds: SystemClock.seconds() - started[index])
                if status == nil { connections[index] = nil }
                offsets[index] = 0
                started[index] = SystemClock.seconds()
            }
        }
        usleep(250_000)
    }
}

/// Pipelining clients that never read: each writes 100 requests every 100 ms, as far as the
/// socket takes them.
func pipeline(port: Int, recorder: SoakRecorder, connections count: Int, request: [UInt8]) {
    let batch = Array(Array(repeating: request, count: 100).joined())
    var connections: [SoakConnection?] = Array(repeating: nil, count: count)
    var pending: [ArraySlice<UInt8>] = Array(repeating: [], count: count)
    var written = Array(repeating: 0, count: count)
    while !recorder.isStopped {
        for index in 0..<count {
            if connections[index] == nil { connections[index] = SoakConnection(port: port, nonBlocking: true) }
            guard let connection = connections[index] else { continue }
            if pending[index].isEmpty { pending[index] = batch[...] }
            guard let sent = connection.sendAvailable(pending[index]) else {
                connections[index] = nil
                continue
            }
            pending[index] = pending[index].dropFirst(sent)
            // Whole requests written.
            let before = written[index] / request.count
            written[index] += sent
            recorder.recordPipelined(written[index] / request.count - before)
        }
        usleep(100_000)
    }
}

/// Connections that never send: checked every second, opened again once the server closed them.
func holdIdle(port: Int, recorder: SoakRecorder, connections count: Int) {
    var connections: [SoakConnection?] = (0..<count).map { _ in SoakConnection(port: port) }
    while !recorder.isStopped {
        for index in 0..<count where connections[index]?.isClosedByServer ?? true {
            if connections[index] != nil { recorder.recordIdleClosed() }
            connections[index] = SoakConnection(port: port)
        }
        usleep(1_000_000)
    }
}

/// The resident memory of a process, from `/proc/PID/status` (VmRSS), in KiB; 0 when gone.
func residentKiB(_ pid: Int32) -> Int {
    // Files under /proc have no size: read until the end.
    let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[0..<count]
    }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
    }
    return 0
}

/// A file's size in bytes; 0 when it does not exist.
func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}
