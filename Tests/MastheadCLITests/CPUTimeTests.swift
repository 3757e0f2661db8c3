import Glibc
@testable import MastheadBench
import Testing

/// The CPU time `masthead-bench service` sets beside each request rate: of a process, of the bare
/// responder's thread, and the requests of a wrk run it is divided by.
struct CPUTimeTests {
    @Test func aProcessesTime_growsWithTheWorkItDoes() throws {
        let before = try #require(CPUTime.process(getpid()))
        // A tenth of a second of this thread's own CPU (other tests may run beside it).
        let start = threadSeconds()
        var turns = 0
        while threadSeconds() - start < 0.1 { turns += 1 }
        let after = try #require(CPUTime.process(getpid()))
        #expect(turns > 0)
        #expect(after.total - before.total >= 0.08)
        #expect(after.system >= before.system)
        #expect(CPUTime.process(-1) == nil)
    }

    /// The calling thread's CPU time in seconds.
    private func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @Test func theRespondersThread_isReadByItsOwnId() throws {
        let responder = BareResponder(response: BareResponderTests.answer)
        defer { responder.stop() }
        #expect(responder.threadId > 0)
        #expect(responder.threadId != getpid())
        let time = try #require(CPUTime.thread(responder.threadId))
        #expect(time.total >= 0)
        #expect(CPUTime.thread(0) == nil)
    }

    @Test func aWrkRunsRequests_comeFromItsSummaryLine() {
        let text = """
            Running 5s test @ http://127.0.0.1:1/
              1 threads and 32 connections
              412345 requests in 5.00s, 180.12MB read
            Requests/sec:  82469.00
            """
        #expect(WrkResult(text: text).requests == 412_345)
        #expect(WrkResult(text: "Requests/sec: 1").requests == nil)
    }
}
