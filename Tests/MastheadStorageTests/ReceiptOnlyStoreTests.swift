import Masthead
import MastheadStorage
import MastheadTestSupport
import Testing

/// What `masthead migrate` reads of a store, on both backends: the subscriptions known only from
/// receipts, and one subscription's history whoever it is linked to.
struct ReceiptOnlyStoreTests {
    @Test(arguments: StoreBackend.tested) func receiptOnlySubscriptions_leaveOutThoseWithASignedCopy(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let receiptOnly = [StoreTests.transaction("a", from: 0, to: 100), StoreTests.transaction("a2", original: "a", from: 100, to: 200)]
        var signed = StoreTests.transaction("b2", original: "b", from: 100, to: 200)
        signed.signedDate = Instant(milliseconds: 150)
        let unlinked = StoreTests.transaction("c", from: 0, to: 100)
        try store.save(transactions: receiptOnly + [StoreTests.transaction("b", from: 0, to: 100), signed, unlinked], renewals: [])
        _ = try store.link(userId: "u", transactions: receiptOnly + [signed], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
        #expect(
            try store.receiptOnlySubscriptions() == [
                ReceiptOnlySubscription(environment: .production, originalTransactionId: "a", userId: "u"),
                ReceiptOnlySubscription(environment: .production, originalTransactionId: "c", userId: nil),
            ])
    }

    @Test(arguments: StoreBackend.tested) func history_ofOneSubscription_holdsItsTransactionsAndRenewals_only(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let own = [StoreTests.transaction("a", from: 0, to: 100), StoreTests.transaction("a2", original: "a", from: 100, to: 200)]
        let renewal = RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewOn: false, evidence: Instant(milliseconds: 150))
        try store.save(transactions: own + [StoreTests.transaction("b", from: 0, to: 100)], renewals: [renewal])
        let history = try store.history(environment: .production, originalTransactionId: "a")
        #expect(history == PurchaseHistory(transactions: own, renewals: [renewal]))
        #expect(try store.history(environment: .sandbox, originalTransactionId: "a") == PurchaseHistory(transactions: [], renewals: []))
    }
}
