import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import MastheadPostgreSQL

/// Service: starts the release `masthead serve`, then drives it with wrk (32 keep-alive
/// connections over loopback): the download check for a user with a year of renewals, and
/// durable notification ingest (each request a new transaction, answered after its commit).
func runServiceBenchmark(_ options: BenchOptions, masthead: String) throws {
    guard access("/usr/bin/wrk", X_OK) == 0 else { fail("wrk is needed: apt-get install wrk") }
    let server = try BenchServer.start(options, masthead: masthead, name: "service-bench", configuration: #""threads": \#(options.loops)"#)
    defer { server.stop() }
    let port = server.port
    let base = "http://127.0.0.1:\(port)"

    try postReader(base: base)

    let script = options.work + "/notifications.lua"
    try #"""
        local threads = {}
        function setup(thread)
          thread:set("tid", #threads + 1)
          table.insert(threads, thread)
        end
        counter = 0
        failures = 0
        prefix = ""
        function init(args)
          prefix = args[1] or ""
        end
        request = function()
          counter = counter + 1
          local id = prefix .. tid .. "-" .. counter
          local body = '{"notification_type":"DID_RENEW","password":"bench-secret","environment":"PROD","unified_receipt":{"status":0,"environment":"Production","latest_receipt_info":[{"transaction_id":"n' .. id .. '","original_transaction_id":"o' .. id .. '","product_id":"com.example.monthly","purchase_date_ms":"1582200000000","expires_date_ms":"1584792000000"}]}}'
          return wrk.format("POST", "/v1/notifications/app-store", {["Content-Type"] = "application/json"}, body)
        end
        response = function(status, headers, body)
          if status ~= 200 then failures = failures + 1 end
        end
        done = function(summary, latency, requests)
          local total = 0
          for _, thread in ipairs(threads) do total = total + thread:get("failures") end
          io.write("non-200 answers: " .. total .. "\n")
        end
        """#.write(toFile: script, atomically: true, encoding: .utf8)

    // The download check twice: wrk on one thread leaves the server a core of its own; on two,
    // wrk's threads and the server's share both cores.
    let duration = "\(options.seconds)s"
    let checkURL = base + "/v1/users/reader-1/issues/the-monthly/2020-06?at=2020-12-01T00:00:00Z"
    let checkArguments = ["-t1", "-c32", "-d" + duration, "--latency", "-H", "Authorization: Bearer bench-token"]
    let serverCPU = CPUTime.process(server.process.processIdentifier)
    let checkOneThread = wrk(checkArguments + [checkURL])
    let checkCPU = CPUTime.process(server.process.processIdentifier).flatMap { after in serverCPU.map { after - $0 } }
    let check = wrk(["-t2", "-c32", "-d" + duration, "--latency", "-H", "Authorization: Bearer bench-token", checkURL])
    let ingest = wrk(["-t2", "-c32", "-d" + duration, "--latency", "-s", script, base + "/v1/notifications/app-store"])
    let health = wrk(["-t2", "-c32", "-d" + duration, "--latency", base + "/health"])

    print("| endpoint (wrk -c32 -d\(duration), release, \(options.loops) event loop(s)) | wrk threads | requests/s | p50 | p99 | non-2xx |")
    print("|---|---|---|---|---|---|")
    print(checkOneThread.row("GET download check (a year of renewals)", threads: 1))
    print(check.row("GET download check (a year of renewals)", threads: 2))
    print(ingest.row("POST notification, 200 after commit", threads: 2))
    print(health.row("GET /health (fixed body)", threads: 2))
    if let failures = ingest.text.split(separator: "\n").first(where: { $0.hasPrefix("non-200 answers:") }) { print(failures) }
    compareWithBareResponder(checkURL: checkURL, arguments: checkArguments, check: checkOneThread, checkCPU: checkCPU)
    if let cluster = options.postgreSQL { try runTwoInstances(options, masthead: masthead, cluster: cluster, script: script) }
}

/// Two instances on a new database of the PostgreSQL `cluster`: the reader's receipt posted to
/// the first, the download check measured on the second (answered from its cache), then
/// notification ingest into both at once, a wrk each.
private func runTwoInstances(_ options: BenchOptions, masthead: String, cluster: String, script: String) throws {
    let name = "masthead_bench_\(getpid())"
    let admin = try PostgreSQLConnection(cluster + "/postgres")
    try admin.execute("CREATE DATABASE \(name)")
    defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
    let settings = try ["fsync", "synchronous_commit", "server_version"].map { setting in
        "\(setting) = " + ((try admin.firstRow("SELECT current_setting($1)", [.text(setting)]) { row throws(PostgreSQLError) in try row.text(0) }) ?? "?")
    }
    let database = cluster + "/" + name
    let configuration = #""threads": \#(options.loops)"#
    let first = try BenchServer.start(options, masthead: masthead, name: "service-bench-pg1", configuration: configuration, database: database)
    defer { first.stop() }
    let second = try BenchServer.start(options, masthead: masthead, name: "service-bench-pg2", configuration: configuration, database: database)
    defer { second.stop() }
    try postReader(base: "http://127.0.0.1:\(first.port)")

    let duration = "\(options.seconds)s"
    let checkURL = "http://127.0.0.1:\(second.port)/v1/users/reader-1/issues/the-monthly/2020-06?at=2020-12-01T00:00:00Z"
    let checkArguments = ["-t1", "-c32", "-d" + duration, "--latency", "-H", "Authorization: Bearer bench-token"]
    let checkOneThread = wrk(checkArguments + [checkURL])
    let check = wrk(["-t2", "-c32", "-d" + duration, "--latency", "-H", "Authorization: Bearer bench-token", checkURL])
    // Ingest into both at once, 16 then 32 connections each, each wrk with its own transaction ids
    // (the script's argument prefixes them).
    let ingests = [16, 32].map { connections in
        let runs = [(first, "a\(connections)-"), (second, "b\(connections)-")].map { server, prefix in
            startWrk(["-t1", "-c\(connections)", "-d" + duration, "--latency", "-s", script, "http://127.0.0.1:\(server.port)/v1/notifications/app-store", "--", prefix])
        }
        return (connections, runs.map { $0() })
    }

    print("")
    print("Two instances on one PostgreSQL (\(settings.joined(separator: ", "))):")
    print("")
    print("| endpoint (wrk -d\(duration), release, \(options.loops) event loop(s) each) | wrk threads | requests/s | p50 | p99 | non-2xx |")
    print("|---|---|---|---|---|---|")
    print(checkOneThread.row("GET download check on instance 2 (receipt posted to instance 1), -c32", threads: 1))
    print(check.row("GET download check on instance 2 (receipt posted to instance 1), -c32", threads: 2))
    for (connections, runs) in ingests {
        for (index, ingest) in runs.enumerated() {
            print(ingest.row("POST notification to instance \(index + 1), 200 after commit, -c\(connections) (both at once)", threads: 1))
        }
        let total = runs.compactMap { Double($0.requestsPerSecond) }.reduce(0, +)
        print("| POST notification, both instances together, -c\(connections) each | 2 | \(String(format: "%.0f", total)) | | | |")
    }
    for ingest in ingests.flatMap(\.1) {
        if let failures = ingest.text.split(separator: "\n").first(where: { $0.hasPrefix("non-200 answers:") }) { print(failures) }
    }
}

/// Posts the receipt of a reader with a year of monthly renewals (`reader-1`) to the service at `base`.
private func postReader(base: String) throws {
    // A reader with a year of monthly renewals.
    let day: Int64 = 86_400_000
    var transactions: [String] = []
    var start: Int64 = 1_578_225_600_000  // 2020-01-05T12:00:00Z
    for month in 0..<12 {
        let end = start + 30 * day
        transactions.append(#"{"transaction_id":"b\#(month)","original_transaction_id":"b0","product_id":"com.example.monthly","purchase_date_ms":"\#(start - 60_000)","expires_date_ms":"\#(end)"}"#)
        start = end
    }
    let receipt = #"{"status":0,"environment":"Production","latest_receipt_info":[\#(transactions.joined(separator: ","))]}"#
    var request = URLRequest(url: URL(string: base + "/v1/users/reader-1/receipts")!)
    request.httpMethod = "POST"
    request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization")
    request.httpBody = Data(receipt.utf8)
    let posted = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var postStatus = 0
    URLSession.shared.dataTask(with: request) { _, response, _ in
        postStatus = (response as? HTTPURLResponse)?.statusCode ?? 0
        posted.signal()
    }.resume()
    posted.wait()
    guard postStatus == 200 else { fail("posting the receipt answered \(postStatus)") }

}

/// One wrk run's figures.
struct WrkResult {
    var text: String
    var requestsPerSecond: String { value(after: "Requests/sec:") ?? "?" }
    var p50: String { value(after: "50%") ?? "?" }
    var p99: String { value(after: "99%") ?? "?" }
    var non2xx: String { value(after: "Non-2xx or 3xx responses:") ?? "0" }
    /// The requests answered in the run (wrk's "N requests in …" line).
    var requests: Int? {
        text.split(separator: "\n").first { $0.contains(" requests in ") }.flatMap { Int($0.split(separator: " ").first ?? "") }
    }

    func value(after label: String) -> String? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(label) { return trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) }
        }
        return nil
    }

    func row(_ name: String, threads: Int) -> String { "| \(name) | \(threads) | \(requestsPerSecond) | \(p50) | \(p99) | \(non2xx) |" }
}

func wrk(_ arguments: [String]) -> WrkResult { startWrk(arguments)() }

/// Starts wrk; the function returned waits for it and answers its figures.
func startWrk(_ arguments: [String]) -> () -> WrkResult {
    let (process, output) = runWrk(arguments)
    return { finishWrk(process, output) }
}

/// Starts wrk with its standard output on a pipe.
func runWrk(_ arguments: [String]) -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch { fail("cannot run wrk: \(error)") }
    return (process, output)
}

/// Waits for a wrk started by ``runWrk(_:)`` and answers its figures.
func finishWrk(_ process: Process, _ output: Pipe) -> WrkResult {
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return WrkResult(text: String(decoding: data, as: UTF8.self))
}
