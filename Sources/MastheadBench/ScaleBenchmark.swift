import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import Masthead
import MastheadCLI
import MastheadFormats
import MastheadPostgreSQL

/// Scale: the download check over a stored population. Stores `--users` generated readers with
/// `masthead import` into SQLite, or a database of the `--postgresql` cluster (once: a database
/// already stored for the same users and seed is reused), starts the release `masthead serve` on it and drives it with wrk
/// (one thread, 32 connections) through a Lua script picking a reader and an issue at random:
/// cold (every reader once, in a random order), warm (readers at random, with replacement), then
/// 1,000 readers at random (the hot peer). Prints the server's RSS and the memory per cached reader,
/// and what a cached reader's parts take on the heap (``CachedReaderBytes``).
func runScaleBenchmark(_ options: BenchOptions, masthead: String) throws {
    guard access("/usr/bin/wrk", X_OK) == 0 else { fail("wrk is needed: apt-get install wrk") }
    let catalog = try CommonOptions.catalog(options.catalog)
    guard let publication = catalog.publications.first, !publication.issues.isEmpty else { fail("the catalog has no issues") }
    let database = try storedPopulation(options, masthead: masthead)
    let at = "2020-12-15T00:00:00Z"
    // Counted before the server and wrk start, while this process allocates alone.
    let readerBytes = try CachedReaderBytes.measure(
        options, catalog: catalog, publication: publication, at: DateText.rfc3339(at)!, readers: min(options.users, 20_000))

    let cacheSetting = (options.cachedUsers.map { #", "maxCachedUsers": \#($0)"# } ?? "")
        + (options.cachedCheckBytes.map { #", "maxCachedCheckBytes": \#($0)"# } ?? "")
    let server = try BenchServer.start(
        options, masthead: masthead, name: "scale-bench", configuration: #""threads": \#(options.loops)"# + cacheSetting, database: database)
    defer { server.stop() }
    let pid = server.process.processIdentifier
    let base = "http://127.0.0.1:\(server.port)"
    let script = options.work + "/scale.lua"
    try scaleScript(publicationId: publication.id, issueIds: publication.issues.map(\.id)).write(toFile: script, atomically: true, encoding: .utf8)
    let finished = options.work + "/scale-cold.done"
    func arguments(_ mode: String, users: Int, seconds: Int) -> [String] {
        ["-t1", "-c32", "-d\(seconds)s", "--latency", "-s", script, base, "--", "\(users)", mode, at, "\(options.seed)", finished]
    }
    func run(_ mode: String, users: Int, seconds: Int) -> WrkResult { wrk(arguments(mode, users: users, seconds: seconds)) }

    let started = residentMemory(pid)
    // Cold: each reader once; the script writes `finished` when every reader has been answered,
    // and wrk, interrupted, then prints its figures.
    unlink(finished)
    let cold = interruptedWrk(arguments("cold", users: options.users, seconds: 3_600), when: finished)
    let afterCold = residentMemory(pid)
    let cachedAfterCold = gauge("masthead_cached_users", base: base)
    let checkBytesAfterCold = gauge("masthead_cached_check_bytes", base: base)
    let warm = run("random", users: options.users, seconds: options.seconds)
    let hot = run("random", users: min(1_000, options.users), seconds: options.seconds)
    let end = residentMemory(pid)
    let checkBytesAtEnd = gauge("masthead_cached_check_bytes", base: base)

    print(
        "\(options.users) stored readers, \(options.loops) event loop(s), maxCachedUsers \(options.cachedUsers.map(String.init) ?? "default"), "
            + "maxCachedCheckBytes \(options.cachedCheckBytes.map(String.init) ?? "default")")
    print("")
    print("| download check (wrk -c32, release, Lua: random reader and issue) | wrk threads | requests/s | p50 | p99 | non-2xx |")
    print("|---|---|---|---|---|---|")
    print(cold.row("cold: each of \(options.users) readers once, random order", threads: 1))
    if let exact = cold.text.split(separator: "\n").first(where: { $0.hasPrefix("cold answers/s:") }) { print(exact) }
    print(warm.row("warm: \(options.users) readers at random, -d\(options.seconds)s", threads: 1))
    print(hot.row("hot peer: 1,000 readers at random, -d\(options.seconds)s", threads: 1))
    for (name, result) in [("cold", cold), ("warm", warm), ("hot", hot)] {
        if let failures = result.text.split(separator: "\n").first(where: { $0.hasPrefix("non-200 answers:") }) { print("\(name) \(failures)") }
    }
    if let warmRate = Double(warm.requestsPerSecond), let hotRate = Double(hot.requestsPerSecond), hotRate > 0 {
        print("warm / hot: \(String(format: "%.2f", warmRate / hotRate))×")
    }
    print("server RSS: \(mebibytes(started.rss)) MiB at start, \(mebibytes(afterCold.rss)) MiB after cold, \(mebibytes(end.rss)) MiB at the end, peak \(mebibytes(end.peak)) MiB")
    print("check bodies (masthead_cached_check_bytes): \(mebibytes(checkBytesAfterCold)) MiB after cold, \(mebibytes(checkBytesAtEnd)) MiB at the end")
    // The cache evicts one reader at a time when full (it is never emptied), so what it holds
    // after the cold pass is what the pass grew the server by.
    if cachedAfterCold > 0 {
        let perReader = Double(afterCold.rss - started.rss) / Double(cachedAfterCold)
        print("cached readers after cold: \(cachedAfterCold); RSS growth per cached reader: \(String(format: "%.0f", perReader)) bytes")
    } else {
        print("cached readers after cold: none (the metrics could not be read): no figure per reader")
    }
    print(readerBytes.summary)
}

/// The database holding the options' population, stored with `masthead import` unless a previous
/// run stored it: a SQLite file in the work folder (its `.done` file says it is whole), or with
/// `--postgresql` a database of that cluster named for the users and seed (whole once its
/// `.done` file in the work folder names it: an import cut short leaves none, and the database
/// is then made anew).
private func storedPopulation(_ options: BenchOptions, masthead: String) throws -> String {
    let name = options.work + "/scale-\(options.users)-\(options.seed)"
    let database: String
    if let cluster = options.postgreSQL {
        let databaseName = "masthead_scale_\(options.users)_\(options.seed)"
        database = cluster + "/" + databaseName
        if (try? String(contentsOfFile: name + ".postgresql.done", encoding: .utf8)) == database {
            print("reusing \(database)")
            return database
        }
        let admin = try PostgreSQLConnection(cluster + "/postgres")
        try admin.execute("DROP DATABASE IF EXISTS \(databaseName) WITH (FORCE)")
        try admin.execute("CREATE DATABASE \(databaseName)")
    } else {
        database = name + ".sqlite"
        if access(name + ".done", F_OK) == 0 {
            print("reusing \(database)")
            return database
        }
        for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
    }
    let receipts = name + ".jsonl"
    _ = try writePopulation(options, to: receipts)
    let imported = measure(
        [masthead, "import", "--catalog", options.catalog, "--receipts", receipts, "--database", database], stdoutPath: options.work + "/scale-import.txt")
    guard imported.status == 0 else { fail("masthead import exited with status \(imported.status)") }
    unlink(receipts)
    print(
        "stored \(options.users) users in \(String(format: "%.1f", imported.wall)) s wall, \(String(format: "%.1f", imported.cpu)) s CPU "
            + "(masthead import): \(database)")
    if options.postgreSQL != nil {
        try database.write(toFile: name + ".postgresql.done", atomically: true, encoding: .utf8)
    } else {
        try "".write(toFile: name + ".done", atomically: true, encoding: .utf8)
    }
    return database
}

/// The wrk script: its arguments are how many readers, the mode (`cold`: each reader once in an
/// order shuffled by the seed, then the thread stops; `random`: readers at random), the `at`
/// instant and the seed. Readers are `user-0` … `user-(N-1)`, issues one of the publication's at random.
private func scaleScript(publicationId: String, issueIds: [String]) -> String {
    let issues = issueIds.map { "\"" + $0 + "\"" }.joined(separator: ", ")
    return #"""
        local issues = {\#(issues)}
        local headers = {["Authorization"] = "Bearer bench-token"}
        users = 0
        local mode, at, order
        failures = 0
        local sent, answered = 0, 0
        local threads = {}
        local ffi = require("ffi")
        ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } scale_timespec; int clock_gettime(int, scale_timespec *); ]]
        local function now()
          local t = ffi.new("scale_timespec")
          ffi.C.clock_gettime(1, t)
          return tonumber(t.tv_sec) + tonumber(t.tv_nsec) * 1e-9
        end
        local started, finished
        elapsed = 0
        function setup(thread)
          table.insert(threads, thread)
        end
        function init(args)
          users = tonumber(args[1])
          mode = args[2]
          at = args[3]
          math.randomseed(tonumber(args[4]))
          finished = args[5]
          if mode == "cold" then
            order = {}
            for i = 1, users do order[i] = i - 1 end
            for i = users, 2, -1 do
              local j = math.random(i)
              order[i], order[j] = order[j], order[i]
            end
          end
        end
        request = function()
          local user
          if not started then started = now() end
          sent = sent + 1
          if mode == "cold" and sent <= users then user = order[sent] else user = math.random(users) - 1 end
          local issue = issues[math.random(#issues)]
          return wrk.format("GET", "/v1/users/user-" .. user .. "/issues/\#(publicationId)/" .. issue .. "?at=" .. at, headers)
        end
        response = function(status, headers, body)
          answered = answered + 1
          if status ~= 200 then failures = failures + 1 end
          if mode == "cold" and answered == users then
            elapsed = now() - started
            local file = io.open(finished, "w")
            file:close()
            wrk.thread:stop()
          end
        end
        done = function(summary, latency, requests)
          local total = 0
          for _, thread in ipairs(threads) do total = total + thread:get("failures") end
          io.write("non-200 answers: " .. total .. "\n")
          local seconds, count = threads[1]:get("elapsed"), threads[1]:get("users")
          if seconds > 0 then io.write(string.format("cold answers/s: %.0f (%d answers in %.2f s, first request to last answer)\n", count / seconds, count, seconds)) end
        end
        """#
}

/// Runs wrk until the file `finished` appears, then interrupts it (it prints its figures for the time it ran).
private func interruptedWrk(_ arguments: [String], when finished: String) -> WrkResult {
    let (process, output) = runWrk(arguments)
    while access(finished, F_OK) != 0 && process.isRunning { usleep(20_000) }
    process.interrupt()
    return finishWrk(process, output)
}

/// A process's resident memory now and at its peak, in bytes (`VmRSS`, `VmHWM`).
func residentMemory(_ pid: Int32) -> (rss: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func kilobytes(_ field: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return (kilobytes("VmRSS"), kilobytes("VmHWM"))
}

private func mebibytes(_ bytes: Int) -> String { String(format: "%.0f", Double(bytes) / 1_048_576) }

/// The gauge `name` of the service at `base` (such as `masthead_cached_users`), or 0 when it cannot be read.
private func gauge(_ name: String, base: String) -> Int {
    var request = URLRequest(url: URL(string: base + "/metrics")!)
    request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization")
    let answered = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var text = ""
    URLSession.shared.dataTask(with: request) { data, _, _ in
        text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
        answered.signal()
    }.resume()
    answered.wait()
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return 0 }
    return Int(line.split(separator: " ").last ?? "") ?? 0
}
