import Foundation
import Masthead
import MastheadAudit
import MastheadCrypto
import MastheadFormats
import MastheadReports
import MastheadTestSupport
import Testing

/// Audits of lines of signed data, run in-process: verified in the workers, refused lines
/// reported, trusted data said to be unverified, and a stop without an app.
struct SignedAuditTests {
    static let at = [AuditFixture.instant("2020-07-02T00:00:00Z")]
    static let app = AppIdentity(bundleId: "com.example.magazine")

    /// The shipped signed Table 6-1 reader as a line of `user`, its tokens changed by `change`.
    static func line(_ user: String, _ change: (inout [String]) -> Void = { _ in }) throws -> String {
        let document = try JSONSerialization.jsonObject(
            with: Data(contentsOf: AuditFixture.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1-signed.json"))) as! [String: [String]]
        var transactions = document["signedTransactions"]!
        change(&transactions)
        let line: [String: Any] = ["user_id": user, "signedTransactions": transactions, "signedRenewalInfos": document["signedRenewalInfos"]!]
        return String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A signature with one character changed.
    static func tamper(_ transactions: inout [String]) {
        var characters = Array(transactions[1])
        characters[characters.count - 20] = characters[characters.count - 20] == "A" ? "B" : "A"
        transactions[1] = String(characters)
    }

    static func verifier(_ trust: SignedDataVerifier.Trust) -> SignedDataVerifier {
        SignedDataVerifier(trust: trust, app: app, catalog: AuditFixture.catalog, now: { Instant(milliseconds: 1_593_648_000_000) })
    }

    static func verifying() throws -> SignedDataVerifier { verifier(.verifySignatures(try JWSVerifier(rootCertificates: [try TestChain.root()]))) }

    @Test func signedLine_decidesLikeItsReceipt_onEveryWorker() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        // More lines than one chunk, so both workers verify.
        let signed = try fixture.file("signed.jsonl", try (0..<100).map { try Self.line("user\($0)") })
        let receipts = try fixture.file("receipts.jsonl", try (0..<100).map { try AuditFixture.line("user\($0)", "table-6-1") })
        let fromSigned = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: signed), instants: Self.at, signedData: try Self.verifying(), workers: 2))
        let fromReceipts = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: receipts), instants: Self.at))
        #expect(fromSigned.sink.rejected == [])
        #expect(fromSigned.sink.bytes == fromReceipts.sink.bytes)
        #expect((fromSigned.result.summary.signedLines, fromSigned.result.summary.signaturesVerified) == (100, true))
        #expect(fromReceipts.result.summary.signedLines == 0)
        #expect(fromSigned.result.summary.rendered.contains("signed data             100 user(s), every signature verified"))
    }

    @Test func tamperedLine_isRejectedWithLineAndPath_neverGranted() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try Self.line("alice"), try Self.line("bob", Self.tamper), try AuditFixture.line("carol", "table-6-1")])
        let (result, sink) = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: Self.at, signedData: try Self.verifying()))
        #expect(sink.lines.map { $0.split(separator: "\"")[3] } == ["alice", "carol"])
        #expect(sink.rejected == [
            "\(path):2: $.signedTransactions[1]: signature refused: invalid ES256 signature: it does not verify with the leaf certificate's key over the token's header and payload"
        ])
        #expect((result.summary.users, result.summary.rejectedLines, result.summary.signedLines) == (2, 1, 1))
    }

    @Test func trustedAlready_skipsSignatures_andTheSummaryAndReportSaySo() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try Self.line("alice"), try Self.line("bob", Self.tamper)])
        let (result, sink) = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: Self.at, signedData: Self.verifier(.trustedAlready)))
        #expect(sink.rejected == [])
        #expect(sink.lines.count == 2)
        #expect(result.summary.signaturesVerified == false)
        #expect(result.summary.rendered.contains("signed data             2 user(s), signatures NOT verified (trusted as verified at ingest)"))
        let inputs = result.reportContent(catalogPath: "catalog", generated: Instant(milliseconds: 0), version: "0").inputs
        #expect(inputs.contains { $0.label == "signed data" && $0.value == "2 user(s), signatures NOT verified (trusted as verified at ingest)" })
    }

    @Test func tokensWithEscapes_decideAsWritten_andNonTokens_areRejectedWithTheirPath() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        // Tokens are read where they lie in the line; one written with escapes is read decoded.
        let escaped = try Self.line("bob").replacingOccurrences(of: ".", with: #"\u002e"#)
        #expect(escaped.contains(#"\u002e"#))
        let plainPath = try fixture.file("plain.jsonl", [try Self.line("alice"), try Self.line("bob")])
        let escapedPath = try fixture.file("escaped.jsonl", [
            try Self.line("alice"), escaped, try Self.line("carol") { $0[1] = "" },
            try Self.line("dave").replacingOccurrences(of: #""signedRenewalInfos":["#, with: #""signedRenewalInfos":[7,"#),
        ])
        let plain = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: plainPath), instants: Self.at, signedData: try Self.verifying()))
        let read = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: escapedPath), instants: Self.at, signedData: try Self.verifying()))
        #expect(read.sink.bytes == plain.sink.bytes)
        #expect(read.sink.rejected == [
            "\(escapedPath):3: invalid value \"\" at $.signedTransactions[1] (line 1): expected a signed token (a non-empty string)",
            "\(escapedPath):4: invalid value 7 at $.signedRenewalInfos[0] (line 1): expected a signed token (a non-empty string)",
        ])
        #expect((read.result.summary.signedLines, read.result.summary.rejectedLines) == (2, 2))
    }

    @Test func receiptAndSignedData_onOneLine_orANotification_areRejected() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let both = try Self.line("dave").dropLast() + #","receipt":{"status":0}}"#
        let path = try fixture.file("in.jsonl", [String(both), #"{"user_id":"erin","signedPayload":"a.b.c"}"#])
        let (result, sink) = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: Self.at, signedData: try Self.verifying()))
        #expect(sink.rejected == [
            "\(path):1: invalid value an object at $.receipt (line 1): expected no receipt beside signedTransactions or signedRenewalInfos (a line carries one or the other)",
            "\(path):2: invalid value \"a.b.c\" at $.signedPayload (line 1): expected receipt, or signedTransactions and signedRenewalInfos (a notification is not a user's line)",
        ])
        #expect(result.summary.users == 0)
    }

    @Test func signedLine_withoutApp_stopsTheAudit_namingTheLine() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try AuditFixture.line("carol", "table-6-1"), try Self.line("alice")])
        #expect(throws: AuditError.self) {
            do {
                _ = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: Self.at))
            } catch AuditError.signedDataWithoutApp(let location) {
                #expect(location == "\(path):2")
                throw AuditError.signedDataWithoutApp(location: location)
            }
        }
    }
}
