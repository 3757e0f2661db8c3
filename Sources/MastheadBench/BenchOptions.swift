import MastheadCLI

/// The options of a benchmark run, read from the command line against the benchmark's spec.
struct BenchOptions {
    var users = 100_000
    var seed: UInt64 = 1
    var work = "/tmp/masthead-bench"
    var catalog = "Catalog/the-monthly"
    var seconds = 10
    /// Event loops of the benchmarked server (service).
    var loops = 2
    /// Pairs of audit and Python runs (audit).
    var runs = 1
    /// Length of the run (soak).
    var minutes = 10
    /// Audit signed data instead of receipts, beside OpenSSL's own verify rate (audit).
    var signed = false
    /// Configure a webhook URL at a local endpoint and report the events' delivery (soak).
    var webhooks = false
    /// A PostgreSQL cluster's URL, without a database (service: two instances also run on a new
    /// database there; scale: the population is stored in a database there instead of SQLite).
    var postgreSQL: String?
    /// The server's `maxCachedUsers` (scale); the service's default when nil.
    var cachedUsers: Int?
    /// The server's `maxCachedCheckBytes` (scale); the service's default when nil.
    var cachedCheckBytes: Int?

    /// Reads the options `parsed` holds; a number out of its range is a usage error.
    init(_ parsed: Arguments) throws(CLIError) {
        users = try parsed.integer("users", in: 1...Int.max) ?? users
        seed = try parsed.unsigned("seed") ?? seed
        work = parsed.value("work") ?? work
        catalog = parsed.value("catalog") ?? catalog
        seconds = try parsed.integer("seconds", in: 1...Int.max) ?? seconds
        loops = try parsed.integer("loops", in: 1...64) ?? loops
        runs = try parsed.integer("runs", in: 1...Int.max) ?? runs
        minutes = try parsed.integer("minutes", in: 1...10_080) ?? minutes
        signed = parsed.flag("signed")
        webhooks = parsed.flag("webhooks")
        postgreSQL = parsed.value("postgresql")
        cachedUsers = try parsed.integer("cached-users", in: 1...Int.max)
        cachedCheckBytes = try parsed.integer("cached-check-bytes", in: 0...Int(Int32.max))
    }

    static let usersOption = OptionSpec.value("users", "N", "Users in the generated population (default 100000).")
    static let seedOption = OptionSpec.value("seed", "S", "The population's random seed (default 1).")
    static let workOption = OptionSpec.value("work", "DIR", "Folder for the generated files (default /tmp/masthead-bench).")
    static let catalogOption = OptionSpec.value("catalog", "DIR", "Catalog folder holding catalog.json (default Catalog/the-monthly).")

    /// The benchmarks and their options.
    static let tool = ToolSpec(
        program: "masthead-bench", about: "measure the release build, reproducing the published figures.",
        commands: [
            CommandSpec(
                program: "masthead-bench", name: "audit", summary: "Time 'masthead audit' against Python's json module on a generated population.",
                description: """
                    Generates a population as 'masthead generate' does, then times the release
                    'masthead audit' on it against a Python json.loads of every line, in pairs.
                    With --signed, generates it as signed data ('masthead generate --signed' with the
                    test chain of Tests/Fixtures/test-chain), measures 'openssl speed ecdsap256' on one
                    core and on both, then times 'masthead audit' verifying every token against the
                    test root, and with --trust-verified, in turns. The signed file is the same bytes
                    for the same users and seed, so one already in --work is reused.
                    """,
                options: [
                    usersOption, seedOption, .value("runs", "N", "Pairs of audit and Python runs, or of audit runs with --signed (default 1)."),
                    .flag("signed", "Audit signed transactions and renewal infos, beside OpenSSL's verify rate."),
                    .value("seconds", "N", "With --signed: seconds of each openssl speed run (default 10)."), workOption, catalogOption,
                ]),
            CommandSpec(
                program: "masthead-bench", name: "database", summary: "Time 'masthead audit --database' against '--receipts' on the same users.",
                description: """
                    Stores a generated population with 'masthead import' (each user's receipt stored and
                    linked as the service stores posted ones, group-committed), then times
                    'masthead audit --database' against 'masthead audit --receipts' on the same users.
                    """,
                options: [usersOption, seedOption, workOption, catalogOption]),
            CommandSpec(
                program: "masthead-bench", name: "grants", summary: "Time 'masthead grants import' of N generated grants into SQLite.",
                description: """
                    Writes N print-subscription grants as a CSV export (--users of them, one reader
                    each), then times 'masthead grants import' into a new SQLite database and the same
                    file again, when every grant is unchanged.
                    """,
                options: [usersOption, seedOption, workOption, catalogOption]),
            CommandSpec(
                program: "masthead-bench", name: "service", summary: "Drive the release 'masthead serve' with wrk.",
                description: """
                    Starts the release 'masthead serve' and drives it with wrk (32 keep-alive connections
                    over loopback): the download check of a reader with a year of renewals, durable
                    notification ingest, and /health; then a bare epoll responder of its own (one
                    thread, no parsing) answering the check's response bytes under the check's
                    'wrk -t1' settings, with the check's ratio to it. Needs wrk (apt-get install wrk). With --postgresql,
                    then starts two instances on a new database of that cluster and measures the download
                    check on the instance the receipt was not posted to, and ingest into both at once (a
                    wrk each, 16 then 32 connections); the cluster's fsync and synchronous_commit are printed.
                    """,
                options: [
                    .value("seconds", "N", "Seconds of each wrk run (default 10)."),
                    .value("postgresql", "URL", "A PostgreSQL cluster, postgresql://user@host:port without a database; its user creates one."),
                    .value("loops", "N", "Event loops of the server, 1 to 64 (default 2)."), workOption, catalogOption,
                ]),
            CommandSpec(
                program: "masthead-bench", name: "scale", summary: "The download check over N stored readers, cold, warm and hot, with wrk.",
                description: """
                    Stores a generated population with 'masthead import' into SQLite (once: the
                    database of a previous run for the same users and seed in --work is reused), starts
                    the release 'masthead serve' on it and drives the download check with wrk (one
                    thread, 32 connections) through a Lua script picking a reader and an issue at
                    random: cold (each reader once, in a random order), warm (the N readers at random
                    for --seconds), then 1,000 readers at random (the hot peer, same run). Prints the
                    ratio of warm to hot, the server's RSS and its growth per cached reader, and what
                    a cached reader's parts take on the heap, counted in its own process first. With
                    --postgresql, the population is stored in a database of that cluster named for
                    the users and seed (kept and reused like the SQLite file) and the server runs on it.
                    """,
                options: [
                    usersOption, seedOption, .value("seconds", "N", "Seconds of the warm and hot wrk runs (default 10)."),
                    .value("cached-users", "N", "The server's maxCachedUsers (default: the service's)."),
                    .value("cached-check-bytes", "N", "The server's maxCachedCheckBytes (default: the service's)."),
                    .value("postgresql", "URL", "A PostgreSQL cluster, postgresql://user@host:port without a database; its user creates one."),
                    .value("loops", "N", "Event loops of the server, 1 to 64 (default 2)."), workOption, catalogOption,
                ]),
            CommandSpec(
                program: "masthead-bench", name: "soak", summary: "Drive the release 'masthead serve' with mixed traffic for N minutes.",
                description: """
                    Starts the release 'masthead serve' on a fresh database over loopback and drives it
                    with download checks, receipts, notifications, slow clients, pipelining clients that
                    never read and idle connections; prints answers/s, p99, the server's RSS and the
                    WAL file's size over time, and a table at the end. With --webhooks, the service has
                    a webhook URL at an endpoint of the benchmark's own that answers at once, and the
                    run also prints the events delivered per second and the delivery latency (from
                    the start of the receipt post that made the change to the event's arrival) p50
                    and p99 over time.
                    """,
                options: [
                    .value("minutes", "N", "Minutes of the run (default 10)."),
                    .flag("webhooks", "Deliver the events to a local endpoint and report their rate and latency."),
                    .value("loops", "N", "Event loops of the server, 1 to 64 (default 2)."), workOption, catalogOption,
                ]),
        ],
        footer: """
            Run 'masthead-bench help <command>' for a command's options. Build first with
            'swift build -c release'; the benchmarks run the 'masthead' beside this program.
            """)
}
