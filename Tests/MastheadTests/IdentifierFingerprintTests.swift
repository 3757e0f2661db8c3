@testable import Masthead
import Testing

/// The fingerprint that lets a history's merge skip comparing most pairs of transaction ids: a
/// function of the bytes alone, so that equal ids always meet; and, where two ids share one, the
/// bytes still decide.
struct IdentifierFingerprintTests {
    /// Two 16-byte ids whose fingerprints are equal (the first eight bytes of one give the other's
    /// first eight xor its last eight turned).
    static let colliding = ("tx-0000000000001", "]Q-;Q8y98sxzxy1i")

    /// Ids stored inline (up to 15 bytes) and on the heap, each also built apart from its bytes
    /// and from a longer text: equal bytes, equal fingerprints; ids of a few bytes, all of which
    /// the fingerprint holds, differ when their bytes do.
    @Test func bytesFingerprint_ofEqualBytes_isEqual() {
        let long = "com.example.monthly.premium"
        let ids = ["", "a", "user-1", "user-10", String(repeating: "x", count: 15), String(repeating: "x", count: 16), long, "caf\u{E9}", "cafe\u{301}"]
        for id in ids {
            let rebuilt = String(decoding: Array(id.utf8), as: UTF8.self)
            let cut = String((id + "-more").dropLast(5))
            #expect(id.bytesFingerprint == rebuilt.bytesFingerprint, "\(id)")
            #expect(id.bytesFingerprint == cut.bytesFingerprint, "\(id)")
        }
        let short = ["", "a", "b", "ab", "ba", "user-1", "user-2", "caf\u{E9}", "cafe\u{301}"]
        #expect(Set(short.map(\.bytesFingerprint)).count == short.count)
    }

    @Test func transactionIds_ofOneFingerprint_areTwoTransactions() {
        let (first, second) = Self.colliding
        #expect(first.bytesFingerprint == second.bytesFingerprint)
        let history = PurchaseHistory(transactions: [
            Mock.renewal(first, "monthly", "2020-02-20T12:00", "2020-03-20T12:00"),
            Mock.renewal(second, "monthly", "2020-03-20T12:00", "2020-04-20T12:00"),
            Mock.renewal(first, "monthly", "2020-02-20T12:00", "2020-03-20T12:00"),
        ])
        #expect(history.transactions.map { Array($0.transactionId.utf8) } == [Array(first.utf8), Array(second.utf8)])
    }
}
