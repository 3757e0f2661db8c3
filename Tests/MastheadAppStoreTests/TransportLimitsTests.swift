import Foundation
import Glibc
import Masthead
import MastheadAppStore
import MastheadTestSupport
import Testing

/// The outgoing client against a peer that trickles or floods: every exchange ends by its total
/// deadline, and reading stops at the size limit (the peer sees the connection closed).
struct TransportLimitsTests {
    /// Most bytes the peer may have handed over when the client stops at a 4 MiB limit: the
    /// limit, the two sides' socket buffers, and room to spare; far below the 1 GiB offered.
    static let mostBytesTaken = 64 << 20

    /// A 1 GiB answer, announced by its length or chunked, is refused at the 4 MiB limit and the
    /// connection closed: the peer could hand over a few buffers past the limit, not the gigabyte.
    @Test(arguments: [false, true])
    func hugeAnswer_stopsReadingAtTheLimit_andClosesTheConnection(chunked: Bool) throws {
        let peer = try HostileHTTPServer(.huge(bytes: 1 << 30, chunked: chunked))
        defer { peer.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 120, maxResponseBytes: 4 << 20)
        let result = transport.send(HTTPSTransport.Request(method: "GET", url: peer.url + "/inApps/v2/history/1"))
        guard case .failure(.tooLarge(_, let limit)) = result else {
            Issue.record("expected tooLarge, got \(result)")
            return
        }
        #expect(limit == 4 << 20)
        #expect(peer.waitUntilFinished(1, seconds: 60), "the peer is still writing: \(peer.counts)")
        let counts = peer.counts
        #expect(counts.closedEarly == 1, "\(counts)")
        #expect(counts.bodyBytesSent < Self.mostBytesTaken, "\(counts)")
    }

    /// An answer trickled a byte every 100 ms (which no idle timeout ends) fails at the
    /// exchange's total deadline, and the connection is closed.
    @Test func trickledAnswer_failsAtTheTotalDeadline_andClosesTheConnection() throws {
        let peer = try HostileHTTPServer(.trickle(intervalMilliseconds: 100, bytes: 300))
        defer { peer.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 1)
        let started = Date()
        let result = transport.send(HTTPSTransport.Request(method: "GET", url: peer.url + "/inApps/v2/history/1"))
        let elapsed = Date().timeIntervalSince(started)
        guard case .failure(.timedOut(_, let milliseconds)) = result else {
            Issue.record("expected timedOut, got \(result) after \(elapsed) s")
            return
        }
        #expect(milliseconds == 1000)
        #expect(elapsed < 15, "the 30 s trickle was waited out: \(elapsed) s")
        #expect(peer.waitUntilFinished(1, seconds: 10), "the connection is still open: \(peer.counts)")
        #expect(peer.counts.closedEarly == 1)
    }

    /// A caller's deadline earlier than the transport's timeout ends the exchange at it.
    @Test func callersDeadline_endsTheExchangeBeforeTheTimeout() throws {
        let peer = try HostileHTTPServer(.trickle(intervalMilliseconds: 100, bytes: 300))
        defer { peer.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 60)
        let result = transport.send(
            HTTPSTransport.Request(method: "GET", url: peer.url + "/"), deadline: Self.monotonicMilliseconds() + 500)
        guard case .failure(.timedOut(_, let milliseconds)) = result else {
            Issue.record("expected timedOut, got \(result)")
            return
        }
        #expect(milliseconds <= 500)
        #expect(peer.waitUntilFinished(1, seconds: 10), "the connection is still open: \(peer.counts)")
    }

    /// A history call whose deadline passes while Apple trickles its answer fails as timed out,
    /// without retrying past the deadline.
    @Test func transactionHistory_pastItsDeadline_failsTimedOut() throws {
        let peer = try HostileHTTPServer(.trickle(intervalMilliseconds: 100, bytes: 300))
        defer { peer.stop() }
        var configuration = AppStoreServerAPIClient.Configuration()
        configuration.productionURL = peer.url + "/production"
        configuration.sandboxURL = peer.url + "/sandbox"
        configuration.allowsHTTP = true
        configuration.attempts = 4
        configuration.backoffMilliseconds = 10
        let client = try AppStoreServerAPIClient(
            credentials: SignedAnswers.credentials(), verifier: SignedAnswers.verifier(), configuration: configuration, transport: HTTPSTransport(timeoutSeconds: 60))
        let started = Date()
        let error = #expect(throws: AppStoreError.self) {
            try client.transactionHistory(transactionId: "1", servers: .only(.production), deadline: Self.monotonicMilliseconds() + 700)
        }
        guard case .timedOut(let endpoint, _)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(endpoint == "GET /inApps/v2/history/1 (Production)")
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(peer.counts.requests == 1)
    }

    /// The monotonic clock in milliseconds, as deadlines are given.
    static func monotonicMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// A verifyReceipt URL over plain http is refused unless allowed, before anything is sent.
    @Test func verifyReceipt_overHTTP_isRefusedUnlessAllowed() throws {
        let peer = try HostileHTTPServer(.trickle(intervalMilliseconds: 1, bytes: 0))
        defer { peer.stop() }
        let client = VerifyReceiptClient(productionURL: peer.url + "/verifyReceipt", sandboxURL: peer.url + "/verifyReceipt", password: "secret", attempts: 3, backoffMilliseconds: 1)
        let error = #expect(throws: VerifyReceiptClient.Failure.self) { try client.verify("receipt") }
        guard case .insecureURL(let url)? = error else {
            Issue.record("expected insecureURL, got \(String(describing: error))")
            return
        }
        #expect(url == peer.url + "/verifyReceipt")
        #expect(peer.counts.requests == 0)
    }
}
