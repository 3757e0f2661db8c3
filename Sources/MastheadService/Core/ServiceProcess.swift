import Dispatch
import Foundation
import Glibc
public import Masthead
import MastheadAppStore
import MastheadClock
import MastheadFormats
public import MastheadHTTP
import MastheadSockets
public import MastheadStorage
import Synchronization

/// Why a service process could not start; nothing it had begun is left running.
public enum ServiceProcessError: Error, Sendable, CustomStringConvertible {
    /// The port is in use or the address not (yet) available: a temporary failure, which a
    /// supervisor retries; nothing was started.
    case cannotListenNow(String)
    /// A configuration that cannot be served: what is wrong.
    case configuration(String)
    /// The database could not be opened (or migrated): which, and why.
    case cannotOpenStore(database: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListenNow(let message), .configuration(let message): message
        case .cannotOpenStore(let database, let reason): "cannot write \(database): \(reason)"
        }
    }
}

/// The service as a running process: what `masthead serve` starts, in its order, and stops in
/// the reverse one.
///
/// ``start(configuration:catalog:clock:warn:)`` blocks the stop signals (SIGTERM and SIGINT)
/// before any thread starts, so that threads inherit the mask and one thread takes them with
/// `sigwait` (none is lost to another thread's handler); ignores SIGPIPE (a client gone
/// mid-answer is an error on its socket); raises the open-file limit; binds the port before it
/// opens anything (a start that cannot listen leaves no database behind); opens the access log
/// and the store; starts the HTTP server's event loops, the signal thread and, when configured,
/// the polling, the sending of Set App Account Token calls (``AppAccountTokenUpdater``), the
/// sending of consumption information and the delivery of the outbox (webhooks, forwarded
/// notifications). A stop signal stops the server gracefully; ``waitUntilStopped()`` then stops
/// the polling and the sending (a run already under way finishes), closes the access log and
/// closes the store (which first stops sending consumption information and delivering the
/// outbox: each request in flight finishes and is recorded, nothing more is claimed).
public final class ServiceProcess: Sendable {
    /// The service served.
    public let service: EntitlementService
    /// The HTTP server in front of it.
    public let server: HTTPServer
    private let accessLog: AccessLog?
    private let polling: Polling?
    /// The timer sending Set App Account Token calls, when the App Store Server API is configured.
    private let tokenUpdates: Polling?
    /// Whether ``waitUntilStopped()`` closes the service (it opened it).
    private let closesService: Bool

    /// A timer (the polling job's, the Set App Account Token calls') and the queue it runs on (a
    /// dispatch source may be cancelled from any thread).
    private struct Polling: @unchecked Sendable {
        let timer: any DispatchSourceTimer
        let queue: DispatchQueue
        /// Set when the process stops, for a job that can end its run early.
        var stopping: StopFlag?
    }

    /// Whether the process is stopping, read by a timer's run between its steps.
    private final class StopFlag: Sendable {
        private let stopped = Atomic(false)
        func set() { stopped.store(true, ordering: .releasing) }
        var isSet: Bool { stopped.load(ordering: .acquiring) }
    }

    private init(
        service: EntitlementService, server: HTTPServer, accessLog: AccessLog?, polling: Polling?, tokenUpdates: Polling? = nil, closesService: Bool
    ) {
        self.service = service
        self.server = server
        self.accessLog = accessLog
        self.polling = polling
        self.tokenUpdates = tokenUpdates
        self.closesService = closesService
    }

    /// The bound host.
    public var host: String { server.host }

    /// The bound port (the chosen one when configured with 0).
    public var port: UInt16 { server.port }

    /// Starts everything `masthead serve` runs, on the system clock, in order (see the type's description); `warn`
    /// gets a line (ending with a newline) when the open-file limit lowers
    /// `maxConnectionsPerThread`.
    public static func start(
        configuration: ServiceConfiguration, catalog: Catalog, warn: (String) -> Void
    ) throws(ServiceProcessError) -> ServiceProcess {
        let stopSignals = blockStopSignals()
        signal(SIGPIPE, SIG_IGN)
        let http = raiseDescriptorLimit(configuration.http, warn: warn)
        let listener = try listen(configuration)
        let accessLog = try openAccessLog(configuration)
        let service: EntitlementService
        do { service = try openService(configuration, catalog: catalog) } catch {
            accessLog?.close()
            throw error
        }
        // Made before serving: a key that is missing or cannot be used stops the start.
        let consumptionClient: AppStoreServerAPIClient?
        do throws(ConfigurationError) {
            consumptionClient = configuration.consumptionInformation ? try service.appStoreServerAPIClient() : nil
            if configuration.consumptionInformation && consumptionClient == nil {
                throw .invalid("consumptionInformation needs the App Store Server API key (MASTHEAD_APP_STORE_KEY_ID and the others) to send to Apple")
            }
        } catch {
            service.close()
            accessLog?.close()
            throw .configuration(error.description)
        }
        let router = ServiceRouter(service: service, accessLog: accessLog)
        let server = HTTPServer(
            configuration: http, listener: listener, headCheck: router.headCheck, errorResponse: router.errorResponse,
            counters: router.httpCounters, handler: router.handler)
        do { try server.start() } catch {
            service.close()
            accessLog?.close()
            throw .configuration("cannot serve on \(configuration.http.host):\(configuration.http.port): \(error)")
        }
        takeStopSignals(stopSignals, stopping: server)
        let polling: Polling?
        if let consumptionClient { service.startSendingConsumptionInformation(client: consumptionClient) }
        service.startDeliveringOutbound()
        service.startSweepingEntitlementEvents()
        service.startAcknowledgingGooglePlayPurchases(log: writeToStandardError)
        do { polling = configuration.pollingEnabled ? try startPolling(service, configuration) : nil } catch {
            server.stop()
            server.waitUntilStopped()
            service.close()
            accessLog?.close()
            throw .configuration(error.description)
        }
        let tokenUpdates: Polling?
        do { tokenUpdates = try startAppAccountTokenUpdates(service, configuration) } catch {
            polling.map(stopTimer)
            server.stop()
            server.waitUntilStopped()
            service.close()
            accessLog?.close()
            throw .configuration(error.description)
        }
        return ServiceProcess(service: service, server: server, accessLog: accessLog, polling: polling, tokenUpdates: tokenUpdates, closesService: true)
    }

    /// Serves `router`'s service, opened and closed by the caller, on `http`'s host and port: the
    /// HTTP server only (no signals, no polling, no access log besides the router's).
    public static func serving(_ router: ServiceRouter, http: HTTPServerConfiguration) throws(ServiceProcessError) -> ServiceProcess {
        let server: HTTPServer
        do {
            server = try HTTPServer(
                configuration: http, headCheck: router.headCheck, errorResponse: router.errorResponse, counters: router.httpCounters,
                handler: router.handler)
            try server.start()
        } catch {
            throw .configuration("cannot serve on \(http.host):\(http.port): \(error)")
        }
        return ServiceProcess(service: router.service, server: server, accessLog: nil, polling: nil, closesService: false)
    }

    /// Stops serving as a stop signal does: no new connections, requests in flight finish (within
    /// the grace period).
    public func stop(gracePeriodMilliseconds: Int = 10_000) {
        server.stop(gracePeriodMilliseconds: gracePeriodMilliseconds)
    }

    /// Waits until the server has stopped, then stops the polling and the sending of Set App
    /// Account Token calls (a run already under way finishes first), closes the access log and,
    /// when it opened it, closes the service.
    /// - Returns: why the database's checkpoint failed (every commit is still in the write-ahead
    ///   log: keep the `-wal` file with the database), or nil.
    @discardableResult
    public func waitUntilStopped() -> StorageError? {
        server.waitUntilStopped()
        polling.map(Self.stopTimer)
        tokenUpdates.map(Self.stopTimer)
        accessLog?.close()
        return closesService ? service.close() : nil
    }

    // MARK: Starting

    /// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it starts).
    private static func blockStopSignals() -> sigset_t {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        return stopSignals
    }

    /// Starts the thread that takes the stop signals with `sigwait` and stops the server at each.
    private static func takeStopSignals(_ signals: sigset_t, stopping server: HTTPServer) {
        // Weak: the waiter outlives serving, and must not keep the server (and through its
        // handler, the service and its connections) alive.
        let waiter = Thread { [weak server] in
            var set = signals
            var received: Int32 = 0
            while sigwait(&set, &received) == 0 { server?.stop() }
        }
        waiter.name = "stop-signals"
        waiter.start()
    }

    /// Raises the open-file limit to what `threads × maxConnectionsPerThread` connections need (up
    /// to the hard limit) and answers the configuration to serve with: when the limit stays lower,
    /// `maxConnectionsPerThread` lowered so that ``DescriptorLimit/reserved`` descriptors stay for
    /// the database, the access log and the outgoing connections (more connections are answered
    /// 503), which `warn` is told.
    static func raiseDescriptorLimit(_ http: HTTPServerConfiguration, warn: (String) -> Void) -> HTTPServerConfiguration {
        let limit = DescriptorLimit.raise(toServe: http)
        guard !limit.isEnough else { return http }
        var lowered = http
        lowered.maxConnectionsPerThread = limit.connectionsPerThread(threads: http.threads)
        warn(
            "masthead: warning: the open-file limit is \(limit.limit) (hard limit \(limit.hardLimit)) but threads × maxConnectionsPerThread "
                + "(\(http.threads) × \(http.maxConnectionsPerThread)) and \(DescriptorLimit.reserved) more need \(limit.needed): "
                + "maxConnectionsPerThread is lowered to \(lowered.maxConnectionsPerThread) so that \(DescriptorLimit.reserved) stay for the "
                + "database, the access log and Apple (more connections are answered 503); raise the limit (ulimit -n, LimitNOFILE=) "
                + "or lower maxConnectionsPerThread\n")
        return lowered
    }

    /// Binds the listening socket. A port in use or an address not (yet) available is a
    /// temporary failure, which a supervisor retries; anything else is a configuration error.
    static func listen(_ configuration: ServiceConfiguration) throws(ServiceProcessError) -> ListeningSocket {
        let address = "\(configuration.http.host):\(configuration.http.port)"
        do { return try ListeningSocket(host: configuration.http.host, port: configuration.http.port) } catch {
            if error.errno == EADDRINUSE || error.errno == EADDRNOTAVAIL {
                throw .cannotListenNow("cannot listen on \(address) now: \(error); nothing was started, try again later")
            }
            throw .configuration("cannot listen on \(address): \(error)")
        }
    }

    /// The access log the `accessLog` setting names, opened; nil when it is empty.
    private static func openAccessLog(_ configuration: ServiceConfiguration) throws(ServiceProcessError) -> AccessLog? {
        guard !configuration.accessLog.isEmpty else { return nil }
        do { return try AccessLog(destination: configuration.accessLog) } catch {
            throw .configuration(error.description)
        }
    }

    /// Opens the configuration's database (applying migrations) with `catalog`, on the system
    /// clock: what `serve`, `refresh`, `import` and `migrate` work on.
    public static func openService(_ configuration: ServiceConfiguration, catalog: Catalog) throws(ServiceProcessError) -> EntitlementService {
        do {
            return try EntitlementService(configuration: configuration, catalog: catalog, clock: { SystemClock.now() })
        } catch {
            throw .cannotOpenStore(database: "\(configuration.database)", reason: "\(error)")
        }
    }

    /// Stops a timer; a run under way finishes first (or, told it is stopping, at its next step).
    private static func stopTimer(_ timer: Polling) {
        timer.stopping?.set()
        timer.timer.cancel()
        timer.queue.sync {}
    }

    /// Starts sending the Set App Account Token calls links queued, every
    /// `appAccountTokenUpdateIntervalSeconds`, each outcome written to standard error; nil when
    /// the App Store Server API is not configured (links then queue none).
    private static func startAppAccountTokenUpdates(_ service: EntitlementService, _ configuration: ServiceConfiguration) throws(ConfigurationError) -> Polling? {
        guard service.queuesAppAccountTokenUpdates, let client = try service.appStoreServerAPIClient() else { return nil }
        let updater = AppAccountTokenUpdater(service: service, client: client, log: writeToStandardError)
        let queue = DispatchQueue(label: "app-account-token-updates")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = configuration.appAccountTokenUpdateIntervalSeconds
        let stopping = StopFlag()
        timer.schedule(deadline: .now() + .seconds(interval), repeating: .seconds(interval))
        timer.setEventHandler {
            do { try updater.run(while: { !stopping.isSet }) } catch { writeToStandardError("app account token: sending failed: \(error)\n") }
        }
        timer.resume()
        return Polling(timer: timer, queue: queue, stopping: stopping)
    }

    /// Writes `line` to standard error in one call.
    private static func writeToStandardError(_ line: String) {
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// Starts polling Apple every `pollingIntervalSeconds` for the subscriptions expiring within
    /// `pollingWindowSeconds`, each run's report written to standard error.
    private static func startPolling(_ service: EntitlementService, _ configuration: ServiceConfiguration) throws(ConfigurationError) -> Polling {
        let refresher = Refresher(
            service: service, client: VerifyReceiptClient(configuration: configuration), appStoreServerAPI: try service.appStoreServerAPIClient())
        let window = Int64(configuration.pollingWindowSeconds) * 1000
        let queue = DispatchQueue(label: "polling")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(configuration.pollingIntervalSeconds), repeating: .seconds(configuration.pollingIntervalSeconds))
        timer.setEventHandler {
            let line: String
            do {
                let report = try refresher.run(within: window)
                line = "polling: \(report.summary)\n"
            } catch {
                line = "polling failed: \(error)\n"
            }
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
        timer.resume()
        return Polling(timer: timer, queue: queue)
    }
}
