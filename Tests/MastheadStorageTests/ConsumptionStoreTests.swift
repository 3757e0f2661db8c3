import Foundation
import Masthead
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// Issues served, consent and pending consumption requests, on both backends.
struct ConsumptionStoreTests {
    static func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    @Test(arguments: StoreBackend.tested) func servedIssues_keepTheFirstInstantPerPair_bytesApart(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let first = ServedIssue(userId: "ana", publicationId: "p", issueId: "caf\u{E9}", firstServed: Self.at(10))
        let decomposed = ServedIssue(userId: "ana", publicationId: "p", issueId: "cafe\u{301}", firstServed: Self.at(20))
        #expect(try store.inTransaction { () throws(StorageError) in try store.recordServedIssues([first, decomposed]) } == 2)
        let again = ServedIssue(userId: "ana", publicationId: "p", issueId: "caf\u{E9}", firstServed: Self.at(30))
        #expect(try store.inTransaction { () throws(StorageError) in try store.recordServedIssues([again]) } == 0)
        let served = try store.servedIssues(forUser: "ana")
        #expect(served.count == 2)
        #expect(served.contains { $0.issueId.sameBytes(as: "caf\u{E9}") && $0.firstServed == Self.at(10) })
        #expect(served.contains { $0.issueId.sameBytes(as: "cafe\u{301}") && $0.firstServed == Self.at(20) })
        #expect(try store.servedIssues(forUser: "bo").isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func consent_isReplaced_withItsInstant(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try store.consumptionConsent(forUser: "ana") == nil)
        _ = try store.inTransaction { () throws(StorageError) in try store.setConsumptionConsent(userId: "ana", consented: true, now: Self.at(10)) }
        _ = try store.inTransaction { () throws(StorageError) in try store.setConsumptionConsent(userId: "ana", consented: false, now: Self.at(20)) }
        #expect(try store.consumptionConsent(forUser: "ana") == ConsumptionConsent(userId: "ana", consented: false, recorded: Self.at(20)))
    }

    @Test(arguments: StoreBackend.tested) func requests_areQueuedOnce_takenByOneCaller_rescheduled_andRemoved(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let request = PendingConsumptionRequest(
            environment: .production, transactionId: "t1", userId: "ana", received: Self.at(100), deadline: Self.at(1000), nextAttempt: Self.at(100))
        #expect(try store.inTransaction { () throws(StorageError) in try store.queueConsumptionRequest(request) })
        var other = request
        other.userId = "bo"
        #expect(try !store.inTransaction { () throws(StorageError) in try store.queueConsumptionRequest(other) })
        #expect(try store.dueConsumptionRequests(at: Self.at(99), limit: 10).isEmpty)
        #expect(try store.dueConsumptionRequests(at: Self.at(100), limit: 10) == [request])
        #expect(try store.inTransaction { () throws(StorageError) in try store.claimConsumptionRequest(request, until: Self.at(500)) })
        // A second caller with the same read loses it.
        #expect(try !store.inTransaction { () throws(StorageError) in try store.claimConsumptionRequest(request, until: Self.at(500)) })
        #expect(try store.dueConsumptionRequests(at: Self.at(499), limit: 10).isEmpty)
        try store.inTransaction { () throws(StorageError) in
            try store.rescheduleConsumptionRequest(environment: .production, transactionId: "t1", nextAttempt: Self.at(200))
        }
        var rescheduled = request
        rescheduled.attempts = 1
        rescheduled.nextAttempt = Self.at(200)
        #expect(try store.dueConsumptionRequests(at: Self.at(200), limit: 10) == [rescheduled])
        #expect(try store.consumptionRequestCount() == 1)
        try store.inTransaction { () throws(StorageError) in try store.removeConsumptionRequest(environment: .production, transactionId: "t1") }
        #expect(try store.consumptionRequestCount() == 0)
    }
}
