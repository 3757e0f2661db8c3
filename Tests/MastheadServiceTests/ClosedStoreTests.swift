import Masthead
@testable import MastheadService
import MastheadStorage
import Synchronization
import Testing

/// A closed service takes no more writes, and says so with the store's own error.
struct ClosedStoreTests {
    @Test func write_afterClose_failsAsClosed_notAsASQLiteError() throws {
        let harness = try ServiceHarness()
        harness.close()
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        harness.service.publish(Issue(id: "late", published: Instant(milliseconds: 0)), in: "the-monthly") { result in outcome.withLock { $0 = result } }
        let error = try #require(outcome.withLock { result -> (any Error)? in
            guard case .failure(let error)? = result else { return nil }
            return error
        })
        #expect(error as? StorageError == .closed)
        #expect("\(error)" == "the store is closed")
    }
}
