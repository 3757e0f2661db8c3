// swift-tools-version: 6.3
import PackageDescription

// The targets in layers, each depending only on targets listed before it (no cycles):
//   domain      Masthead (pure values, no I/O)
//   system      MastheadClock, MastheadSockets (+ CEpoll)
//   formats     MastheadJSON, MastheadCrypto (+ COpenSSL), MastheadFormats, MastheadSynthetic
//   storage     MastheadSQL, MastheadSQLite (+ CSQLite), MastheadPostgreSQL (+ CLibPQ), MastheadStorage
//   protocols   MastheadHTTP, MastheadAppStore, MastheadGooglePlay
//   pictures    MastheadReports (the service draws its timeline too)
//   service     MastheadService (+ COpenAPIDocument, CConsolePage)
//   audit       MastheadAudit
//   commands    MastheadCLI, then the executables masthead and masthead-bench
// Where a new notification type, store backend, route or command goes: README.md, "Where a change goes".

/// The same settings on every target: Swift 6 mode and the upcoming features the code is written for.
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Masthead",
    products: [
        .library(name: "Masthead", targets: ["Masthead"]),
        .library(name: "MastheadJSON", targets: ["MastheadJSON"]),
        .library(name: "MastheadFormats", targets: ["MastheadFormats"]),
        .library(name: "MastheadSynthetic", targets: ["MastheadSynthetic"]),
        .library(name: "MastheadCrypto", targets: ["MastheadCrypto"]),
        .library(name: "MastheadSQLite", targets: ["MastheadSQLite"]),
        .library(name: "MastheadPostgreSQL", targets: ["MastheadPostgreSQL"]),
        .library(name: "MastheadStorage", targets: ["MastheadStorage"]),
        .library(name: "MastheadAppStore", targets: ["MastheadAppStore"]),
        .library(name: "MastheadGooglePlay", targets: ["MastheadGooglePlay"]),
        .library(name: "MastheadReports", targets: ["MastheadReports"]),
        .library(name: "MastheadAudit", targets: ["MastheadAudit"]),
        .executable(name: "masthead", targets: ["masthead"]),
        .executable(name: "masthead-bench", targets: ["MastheadBench"]),
    ],
    targets: [
        // Domain: catalog, transactions, intervals, periods, access, status. Pure values, no I/O.
        .target(name: "Masthead", swiftSettings: settings),
        // A strict RFC 8259 reader that indexes a document without building dictionaries, and a writer.
        .target(name: "MastheadJSON", swiftSettings: settings),
        // The system's real-time and monotonic clocks, read in one place.
        .target(name: "MastheadClock", swiftSettings: settings),
        // OpenSSL 3's libcrypto and libssl as the OS ships them (libssl-dev).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        // Apple's signed data: certificates, ES256, chain verification to configured roots, compact JWS.
        .target(name: "MastheadCrypto", dependencies: ["COpenSSL", "Masthead", "MastheadJSON"], swiftSettings: settings),
        // File and wire formats: catalog.json, App Store receipts (R2) and signed data (R2.8), entitlement JSON.
        .target(
            name: "MastheadFormats", dependencies: ["Masthead", "MastheadJSON", "MastheadClock", "MastheadCrypto"], swiftSettings: settings),
        // A synthetic population of readers from a seed, and the seeded generator (SplitMix64).
        .target(
            name: "MastheadSynthetic", dependencies: ["Masthead", "MastheadJSON", "MastheadCrypto", "MastheadFormats"], swiftSettings: settings),
        // Asking Apple: one HTTPS transport (HTTP/1.1 over OpenSSL's TLS), verifyReceipt and the App Store Server API client.
        .target(
            name: "MastheadAppStore", dependencies: ["Masthead", "MastheadJSON", "MastheadClock", "MastheadCrypto", "MastheadFormats", "COpenSSL"],
            swiftSettings: settings),
        // Asking Google Play: Pub/Sub push tokens verified (RS256, Google's JWKS), the service account's
        // access tokens and the Play Developer API client, over MastheadAppStore's HTTPS transport.
        .target(
            name: "MastheadGooglePlay", dependencies: ["Masthead", "MastheadJSON", "MastheadClock", "MastheadCrypto", "MastheadFormats", "MastheadAppStore"],
            swiftSettings: settings),
        // What the SQLite and PostgreSQL wrappers share: transactions and savepoints on a connection that executes SQL text.
        .target(name: "MastheadSQL", swiftSettings: settings),
        // SQLite 3 as the OS ships it (libsqlite3-dev).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // A small SQLite wrapper: connections, statements, typed rows, transactions, savepoints, read snapshots, migrations.
        .target(name: "MastheadSQLite", dependencies: ["CSQLite", "MastheadSQL"], swiftSettings: settings),
        // libpq as the OS ships it (libpq-dev).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        // A small PostgreSQL wrapper: connections, parameterised queries, typed rows, transactions, savepoints, migrations.
        .target(name: "MastheadPostgreSQL", dependencies: ["CLibPQ", "MastheadSQL"], swiftSettings: settings),
        // The service's store: its interface, its policy, and its SQLite and PostgreSQL implementations and schemas.
        .target(name: "MastheadStorage", dependencies: ["Masthead", "MastheadJSON", "MastheadSQLite", "MastheadPostgreSQL"], swiftSettings: settings),
        // epoll and eventfd, which Swift's Glibc module does not expose.
        .target(name: "CEpoll"),
        // Sockets: a listening socket and an epoll poller, errors with errno.
        .target(name: "MastheadSockets", dependencies: ["CEpoll"], swiftSettings: settings),
        // HTTP/1.1 on the sockets: parsing with limits, keep-alive, event loops on `threads` threads.
        .target(name: "MastheadHTTP", dependencies: ["MastheadSockets", "MastheadClock"], swiftSettings: settings),
        // The service's OpenAPI document, openapi.json, compiled in with C23's #embed (no resource bundle to install).
        .target(name: "COpenAPIDocument", exclude: ["openapi.json"]),
        // The support console's page (HTML, script, style sheet), compiled in with C23's #embed too.
        .target(name: "CConsolePage", exclude: ["console.html", "console.js", "console.css"]),
        // Pictures and pages for people: the reader timeline (SVG) and the audit report (HTML).
        .target(name: "MastheadReports", dependencies: ["Masthead"], swiftSettings: settings),
        // The companion service: routes, group-committed writes, cached histories, polling.
        .target(
            name: "MastheadService",
            dependencies: [
                "Masthead", "MastheadJSON", "MastheadClock", "MastheadCrypto", "MastheadFormats", "MastheadStorage", "MastheadSockets", "MastheadHTTP",
                "MastheadAppStore", "MastheadGooglePlay", "MastheadReports", "COpenAPIDocument", "CConsolePage",
            ],
            swiftSettings: settings),
        // Audits: many users decided from a receipts file or the service's database, grants reconciled, in bounded memory.
        .target(
            name: "MastheadAudit", dependencies: ["Masthead", "MastheadJSON", "MastheadFormats", "MastheadStorage", "MastheadReports"],
            swiftSettings: settings),
        // The command-line commands, as a library so tests can call them with arguments.
        .target(
            name: "MastheadCLI",
            dependencies: [
                "Masthead", "MastheadJSON", "MastheadClock", "MastheadCrypto", "MastheadFormats", "MastheadSynthetic", "MastheadStorage", "MastheadSockets",
                "MastheadHTTP", "MastheadService", "MastheadReports", "MastheadAudit", "MastheadAppStore", "MastheadGooglePlay",
            ],
            swiftSettings: settings),
        .executableTarget(name: "masthead", dependencies: ["MastheadCLI"], swiftSettings: settings),
        .executableTarget(
            name: "MastheadBench", dependencies: ["CEpoll", "Masthead", "MastheadClock", "MastheadFormats", "MastheadSynthetic", "MastheadCLI", "MastheadPostgreSQL"],
            swiftSettings: settings),
        // libFuzzer targets for the parsers and decoders; replays corpus files when built normally
        // (see .ci/fuzz, which builds it with -D FUZZING).
        .executableTarget(
            name: "MastheadFuzz", dependencies: ["Masthead", "MastheadJSON", "MastheadFormats", "MastheadCrypto", "MastheadHTTP", "MastheadGooglePlay"],
            path: "Tests/Fuzz/MastheadFuzz",
            swiftSettings: settings),
        .testTarget(name: "MastheadFuzzTests", dependencies: ["MastheadFuzz"], path: "Tests/Fuzz/MastheadFuzzTests", swiftSettings: settings),
        .testTarget(name: "MastheadTests", dependencies: ["Masthead", "MastheadSynthetic"], swiftSettings: settings),
        .testTarget(name: "MastheadJSONTests", dependencies: ["MastheadJSON"], swiftSettings: settings),
        .testTarget(name: "MastheadCryptoTests", dependencies: ["MastheadCrypto"], swiftSettings: settings),
        .testTarget(
            name: "MastheadFormatsTests",
            dependencies: ["Masthead", "MastheadJSON", "MastheadCrypto", "MastheadFormats", "MastheadSynthetic", "MastheadTestSupport"],
            swiftSettings: settings),
        // A blocking HTTP client for live server tests, the test certificate chain that signs test
        // data, a fake App Store Server API, and a throwaway PostgreSQL cluster with a fresh
        // database per test.
        .target(
            name: "MastheadTestSupport", dependencies: ["MastheadCrypto", "MastheadJSON", "MastheadHTTP", "MastheadPostgreSQL", "COpenSSL"],
            path: "Tests/MastheadTestSupport", swiftSettings: settings),
        .testTarget(
            name: "MastheadAppStoreTests",
            dependencies: ["Masthead", "MastheadCrypto", "MastheadFormats", "MastheadAppStore", "MastheadTestSupport"],
            swiftSettings: settings),
        .testTarget(name: "MastheadHTTPTests", dependencies: ["MastheadHTTP", "MastheadTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "MastheadGooglePlayTests",
            dependencies: ["Masthead", "MastheadJSON", "MastheadCrypto", "MastheadHTTP", "MastheadAppStore", "MastheadGooglePlay", "MastheadTestSupport"],
            swiftSettings: settings),
        .testTarget(
            name: "MastheadServiceTests",
            dependencies: [
                "Masthead", "MastheadJSON", "MastheadCrypto", "MastheadFormats", "MastheadSynthetic", "MastheadSQLite", "MastheadPostgreSQL",
                "MastheadStorage", "MastheadHTTP", "MastheadService", "MastheadAppStore", "MastheadGooglePlay", "MastheadTestSupport",
            ],
            swiftSettings: settings),
        .testTarget(name: "MastheadReportsTests", dependencies: ["Masthead", "MastheadReports"], swiftSettings: settings),
        .testTarget(name: "MastheadSQLiteTests", dependencies: ["MastheadSQLite"], swiftSettings: settings),
        .testTarget(name: "MastheadPostgreSQLTests", dependencies: ["MastheadPostgreSQL", "MastheadTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "MastheadStorageTests",
            dependencies: ["Masthead", "MastheadSynthetic", "MastheadSQLite", "MastheadPostgreSQL", "MastheadStorage", "MastheadTestSupport"],
            swiftSettings: settings),
        .testTarget(
            name: "MastheadAuditTests",
            dependencies: [
                "Masthead", "MastheadJSON", "MastheadFormats", "MastheadSQLite", "MastheadStorage", "MastheadReports", "MastheadAudit", "MastheadCrypto",
                "MastheadTestSupport",
            ],
            swiftSettings: settings),
        .testTarget(
            name: "MastheadCLITests",
            dependencies: [
                "Masthead", "MastheadJSON", "MastheadFormats", "MastheadSQLite", "MastheadPostgreSQL", "MastheadStorage", "MastheadHTTP", "MastheadService",
                "MastheadReports", "MastheadAudit", "MastheadCLI", "MastheadTestSupport", "masthead", "MastheadBench",
            ],
            swiftSettings: settings),
    ]
)
