import Foundation
import Masthead
import MastheadAudit
import MastheadFormats
import Testing

/// `masthead import`'s input: each non-blank line as a user and receipt or verified signed data, or
/// with the audit's reason.
struct ReceiptsFileTests {
    @Test func lines_giveUsersAndReasons_withLineNumbers_skippingBlankOnes() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let withoutLatest = try AuditFixture.receipt("table-6-2").replacingOccurrences(of: #""latest_receipt": "(base64 receipt)","#, with: "")
        let path = try fixture.file("in.jsonl", [
            try AuditFixture.line("alice", "table-6-1"), "  ", "{not json", #"{"user_id": "bob", "receipt": \#(withoutLatest)}"#,
            #"{"user_id": "", "receipt": {}}"#, #"{"user_id": 42, "receipt": {"status": 21007}}"#,
        ])
        let file = try ReceiptsFile(path: path, catalog: AuditFixture.catalog)
        var read: [ReceiptsFile.Line] = []
        while true {
            let lines = try file.next(maxLines: 2)
            if lines.isEmpty { break }
            read += lines
        }
        #expect(read.count == 5)
        guard case .user(let alice) = read[0], case .rejected(3, let json) = read[1], case .user(let bob) = read[2],
            case .rejected(5, let empty) = read[3], case .rejected(6, let status) = read[4]
        else { return #expect(Bool(false), "unexpected lines: \(read)") }
        #expect((alice.line, alice.userId, alice.latestReceipt) == (1, "alice", "(base64 receipt)"))
        #expect(!alice.history.transactions.isEmpty)
        #expect((bob.line, bob.userId, bob.latestReceipt) == (4, "bob", nil))
        #expect(json.hasPrefix("invalid JSON: "))
        #expect(empty == "missing field $.user_id (line 1)")
        #expect(status.hasPrefix("receipt rejected: status 21007"))
    }

    /// Signed lines read as the audit reads them: every token verified, a refused one naming its
    /// JSON path; the history is the receipt's.
    @Test func signedLines_verified_refusedOnesNamingTheToken() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try SignedAuditTests.line("alice"), try SignedAuditTests.line("bob", SignedAuditTests.tamper)])
        let file = try ReceiptsFile(path: path, catalog: AuditFixture.catalog, signedData: try SignedAuditTests.verifying())
        var read: [ReceiptsFile.Line] = []
        while case let lines = try file.next(maxLines: 10), !lines.isEmpty { read += lines }
        guard read.count == 2, case .user(let alice) = read[0], case .rejected(2, let reason) = read[1] else {
            return #expect(Bool(false), "unexpected lines: \(read)")
        }
        let receipt = try ReceiptDecoder(catalog: AuditFixture.catalog).decode(Array(try AuditFixture.receipt("table-6-1").utf8))
        #expect((alice.line, alice.userId, alice.latestReceipt) == (1, "alice", nil))
        #expect(alice.history.transactions.map(\.transactionId) == receipt.transactions.map(\.transactionId))
        #expect(alice.history.transactions.allSatisfy { $0.signedDate != nil })
        #expect(reason.hasPrefix("$.signedTransactions[1]: signature refused: invalid ES256 signature"))
    }

    /// A signed line without a verifier stops the reading at that line.
    @Test func signedLine_withoutVerifier_throwsNamingTheLine() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try AuditFixture.line("carol", "table-6-1"), try SignedAuditTests.line("alice")])
        let file = try ReceiptsFile(path: path, catalog: AuditFixture.catalog)
        let error = #expect(throws: AuditError.self) { while try !file.next(maxLines: 10).isEmpty {} }
        guard case .signedDataWithoutApp(let location)? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        #expect(location == "\(path):2")
    }

    @Test func missingFile_cannotBeRead() {
        let error = #expect(throws: AuditError.self) { try ReceiptsFile(path: "/nonexistent/in.jsonl", catalog: AuditFixture.catalog) }
        guard case .cannotRead(let path, let reason)? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        #expect((path, reason) == ("/nonexistent/in.jsonl", "No such file or directory"))
    }
}
