import Dispatch
import Glibc
import MastheadClock
import Synchronization

/// An address of a server, as `getaddrinfo` gives it: its family and `sockaddr` bytes.
struct SocketAddress: Sendable, Equatable {
    var family: Int32
    var bytes: [UInt8]
}

/// The name lookups of outgoing connections. Each runs on a thread of its own, so that a resolver
/// slower than the connection's deadline cannot hold the caller: it is left to finish alone. At
/// most ``maxInFlight`` run at once, those left to finish included, so a hanging resolver holds
/// no more threads than that; a lookup that finds none free by its deadline fails ("too many
/// name lookups in flight", a network failure retried like another). A host's addresses are kept
/// ``cacheMilliseconds`` after a successful lookup, for at most ``maxCachedHosts`` hosts.
final class NameLookups: Sendable {
    /// A blocking lookup of a host and port: its addresses, or why there are none.
    typealias Resolver = @Sendable (_ host: String, _ port: UInt16) -> Result<[SocketAddress], ExchangeFailure>

    /// The lookups of every transport of the process, through the system's resolver.
    static let shared = NameLookups(resolver: NameLookups.system)

    /// The most lookups running at once.
    let maxInFlight: Int
    /// How long a successful lookup's addresses are used again.
    let cacheMilliseconds: Int64
    /// The most hosts whose addresses are kept.
    static let maxCachedHosts = 32

    private let resolver: Resolver
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())
    /// One per lookup that may run; taken when it starts, given back when it ends.
    private let slots: DispatchSemaphore

    private struct State {
        var inFlight = 0
        /// By host and port: the addresses and until when they are used.
        var cache: [[UInt8]: (addresses: [SocketAddress], until: Int64)] = [:]
    }

    /// - Parameters:
    ///   - resolver: the lookup itself (the system's; replaced in tests).
    ///   - now: the monotonic clock, in milliseconds.
    init(
        resolver: @escaping Resolver, maxInFlight: Int = 4, cacheMilliseconds: Int64 = 60_000,
        now: @escaping @Sendable () -> Int64 = { SystemClock.monotonicMilliseconds() }
    ) {
        self.resolver = resolver
        self.maxInFlight = maxInFlight
        self.cacheMilliseconds = cacheMilliseconds
        self.now = now
        slots = DispatchSemaphore(value: maxInFlight)
    }

    /// The lookups running now, those whose callers gave up included.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// The addresses of `host`:`port`, from the cache or a lookup that must end by `deadline`
    /// (monotonic milliseconds).
    func addresses(_ host: String, _ port: UInt16, deadline: Int64) throws(ExchangeFailure) -> [SocketAddress] {
        // The key is the host's exact bytes: two spellings of a name are two entries.
        let key = Array(host.utf8) + Array(":\(port)".utf8)
        let started = now()
        guard deadline > started else { throw .timedOut }
        // An address written out is parsed at once, without a thread or a slot.
        var literal = in6_addr()
        if inet_pton(AF_INET, host, &literal) == 1 || inet_pton(AF_INET6, host, &literal) == 1 { return try resolver(host, port).get() }
        if let cached = state.withLock({ $0.cache[key] }), cached.until > started { return cached.addresses }
        guard slots.wait(timeout: dispatchTime(deadline)) == .success else {
            throw .failed("cannot resolve \(host): too many name lookups in flight (\(maxInFlight))")
        }
        state.withLock { $0.inFlight += 1 }
        let lookup = Lookup()
        DispatchQueue.global().async { [self] in
            let outcome = resolver(host, port)
            let finished = now()
            state.withLock { state in
                state.inFlight -= 1
                guard case .success(let addresses) = outcome, cacheMilliseconds > 0 else { return }
                if state.cache.count >= Self.maxCachedHosts { state.cache = state.cache.filter { $0.value.until > finished } }
                if state.cache.count >= Self.maxCachedHosts { state.cache.removeAll() }
                state.cache[key] = (addresses, finished + cacheMilliseconds)
            }
            slots.signal()
            lookup.outcome.withLock { $0 = outcome }
            lookup.done.signal()
        }
        guard lookup.done.wait(timeout: dispatchTime(deadline)) == .success else { throw .timedOut }
        return try lookup.outcome.withLock { $0 ?? .failure(.failed("cannot resolve \(host)")) }.get()
    }

    /// The dispatch time of a monotonic `deadline`.
    private func dispatchTime(_ deadline: Int64) -> DispatchTime {
        .now() + .milliseconds(Int(max(0, min(deadline - now(), Int64(Int32.max)))))
    }

    /// A name lookup's outcome, handed from its thread.
    private final class Lookup: Sendable {
        let outcome = Mutex<Result<[SocketAddress], ExchangeFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// The system's resolver (`getaddrinfo`): TCP addresses of any family.
    static func system(_ host: String, _ port: UInt16) -> Result<[SocketAddress], ExchangeFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                let bytes = [UInt8](UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                addresses.append(SocketAddress(family: current.pointee.ai_family, bytes: bytes))
            }
            entry = current.pointee.ai_next
        }
        if list != nil { freeaddrinfo(list) }
        guard status == 0, !addresses.isEmpty else { return .failure(.failed("cannot resolve \(host): \(String(cString: gai_strerror(status)))")) }
        return .success(addresses)
    }
}
