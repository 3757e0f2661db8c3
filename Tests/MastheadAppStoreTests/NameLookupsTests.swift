import Dispatch
import Foundation
import Glibc
@testable import MastheadAppStore
import Synchronization
import Testing

/// Name lookups of outgoing connections: a resolver that hangs holds a bounded number of threads,
/// and a host's addresses are used again for a while.
struct NameLookupsTests {
    static let address = SocketAddress(family: AF_INET, bytes: [2, 0, 1, 187, 127, 0, 0, 1] + [UInt8](repeating: 0, count: 8))

    /// A resolver that counts its calls and hangs until released.
    final class HangingResolver: Sendable {
        let calls = Mutex(0)
        let release = DispatchSemaphore(value: 0)

        func resolve(_ host: String, _ port: UInt16) -> Result<[SocketAddress], ExchangeFailure> {
            calls.withLock { $0 += 1 }
            release.wait()
            return .success([NameLookupsTests.address])
        }
    }

    /// Whether `condition` holds within `seconds`, checked every 10 ms.
    static func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    /// While the resolver hangs, ten lookups start four (each abandoned at its caller's deadline,
    /// left running), and the six others fail naming why, without starting a lookup; once the
    /// four end, their addresses are kept and answered.
    @Test func hangingResolver_runsAtMostFourLookups_andTheOthersFailNamingWhy() throws {
        let resolver = HangingResolver()
        let lookups = NameLookups(resolver: { resolver.resolve($0, $1) }, maxInFlight: 4)
        var timedOut = 0
        var refused: [String] = []
        for _ in 1...10 {
            do throws(ExchangeFailure) {
                _ = try lookups.addresses("apple.invalid", 443, deadline: TransportLimitsTests.monotonicMilliseconds() + 50)
                Issue.record("a lookup answered while the resolver hangs")
            } catch {
                switch error {
                case .timedOut: timedOut += 1
                case .failed(let reason): refused.append(reason)
                case .tooLarge: Issue.record("unexpected \(error)")
                }
            }
        }
        #expect(timedOut == 4)
        #expect(refused == Array(repeating: "cannot resolve apple.invalid: too many name lookups in flight (4)", count: 6))
        #expect(lookups.inFlight == 4)
        #expect(Self.eventually { resolver.calls.withLock { $0 } == 4 })
        #expect(resolver.calls.withLock { $0 } == 4)
        for _ in 1...4 { resolver.release.signal() }
        #expect(Self.eventually { lookups.inFlight == 0 })
        let addresses = try lookups.addresses("apple.invalid", 443, deadline: TransportLimitsTests.monotonicMilliseconds() + 10_000)
        #expect(addresses == [Self.address])
        #expect(resolver.calls.withLock { $0 } == 4)
    }

    /// A transport whose lookups are all taken fails the exchange as a network failure (retried
    /// like another), naming why.
    @Test func transport_withNoLookupFree_failsAsANetworkFailure() throws {
        let resolver = HangingResolver()
        defer { resolver.release.signal() }
        let lookups = NameLookups(resolver: { resolver.resolve($0, $1) }, maxInFlight: 1)
        let transport = HTTPSTransport(timeoutSeconds: 10, maxResponseBytes: 1 << 20, rootCertificatesFile: nil, lookups: lookups)
        let request = HTTPSTransport.Request(method: "GET", url: "http://apple.invalid/")
        let first = transport.send(request, deadline: TransportLimitsTests.monotonicMilliseconds() + 50)
        guard case .failure(.timedOut) = first else {
            Issue.record("expected timedOut, got \(first)")
            return
        }
        let second = transport.send(request, deadline: TransportLimitsTests.monotonicMilliseconds() + 50)
        guard case .failure(.network(let url, let reason)) = second else {
            Issue.record("expected a network failure, got \(second)")
            return
        }
        #expect(url == "http://apple.invalid/")
        #expect(reason == "cannot resolve apple.invalid: too many name lookups in flight (1)")
    }

    /// A host's addresses are used again for 60 s after a successful lookup, by the exact bytes
    /// of its name; a failed lookup is not kept.
    @Test func addresses_areKeptSixtySeconds_byTheNamesExactBytes_failuresNot() throws {
        let clock = Mutex<Int64>(1_000)
        let calls = Mutex<[String]>([])
        let lookups = NameLookups(
            resolver: { host, _ in
                calls.withLock { $0.append(host) }
                return host.hasPrefix("broken") ? .failure(.failed("cannot resolve \(host)")) : .success([NameLookupsTests.address])
            },
            now: { clock.withLock { $0 } })
        func lookUp(_ host: String) -> Bool { (try? lookups.addresses(host, 443, deadline: clock.withLock { $0 } + 10_000)) == [Self.address] }
        #expect(lookUp("caf\u{E9}.example"))
        #expect(lookUp("caf\u{E9}.example"))
        #expect(lookUp("cafe\u{301}.example"))
        #expect(!lookUp("broken.example"))
        #expect(!lookUp("broken.example"))
        clock.withLock { $0 += 59_999 }
        #expect(lookUp("caf\u{E9}.example"))
        clock.withLock { $0 += 1 }
        #expect(lookUp("caf\u{E9}.example"))
        #expect(calls.withLock { $0 } == ["caf\u{E9}.example", "cafe\u{301}.example", "broken.example", "broken.example", "caf\u{E9}.example"])
    }
}
