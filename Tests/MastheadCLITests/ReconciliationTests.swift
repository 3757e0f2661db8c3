import Foundation
import MastheadJSON
import Testing

/// What reconciling grants with entitlements means: a revenue leak is judged when the issue was
/// served, content kept after the entitlement ended is named as such, free issues are never
/// owed, and each count belongs to one instant and one product.
struct ReconciliationTests {
    /// Audits `users` (shipped receipt names, or receipt lines) against `grants` (CSV rows after
    /// the header) at `instants`; returns the run and its JSON lines.
    static func audit(
        _ users: [(id: String, receipt: String)], grants: [String], at instants: [String], extra: [String] = []
    ) throws -> (run: Tool.Outcome, lines: [JSONValue]) {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("receipts.jsonl")
        let lines = try users.map { user in
            user.receipt.hasPrefix("{") ? #"{"user_id": "\#(user.id)", "receipt": \#(user.receipt)}"# : try AuditCommandTests.receiptLine(user.id, user.receipt)
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: receipts)
        let file = folder.appendingPathComponent("grants.csv")
        try Data((["user_id,publication,issue_id,granted_at"] + grants).joined(separator: "\n").utf8).write(to: file)
        let run = try Tool.run(
            ["audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--grants", file.path] + instants.flatMap { ["--at", $0] } + extra)
        return (run, try run.output.split(separator: "\n").map { try JSONDocument(parsing: String($0)).root })
    }

    static func issues(_ value: JSONValue?) -> [String] { value?.elements.map { $0["issue"]!.string! } ?? [] }

    /// A streaming reader (Table 6-2: active to 20 April, lapsed to 5 May, active to 5 July)
    /// served the March issue on 5 March, while active: not a revenue leak after they lapse, but
    /// content still held after the entitlement ended, with the engine's reason as of then.
    @Test func streamingReaderServedWhileActive_thenLapsed_isHeldNotOverGranted() throws {
        let (run, lines) = try Self.audit([("carol", "table-6-2")], grants: ["carol,the-monthly,2020-03,2020-03-05T00:00:00Z"],
                                          at: ["2020-06-30T00:00:00Z", "2020-07-10T00:00:00Z"], extra: ["--fail-on-discrepancy"])
        let asOf = Array(try #require(lines.first?["asOf"]?.elements))
        #expect(Self.issues(asOf[0]["overGranted"]).isEmpty && Self.issues(asOf[0]["heldAfterEntitlementEnded"]).isEmpty)
        #expect(Self.issues(asOf[1]["overGranted"]).isEmpty)
        #expect(Self.issues(asOf[1]["heldAfterEntitlementEnded"]) == ["2020-03"])
        let held = try #require(asOf[1]["heldAfterEntitlementEnded"]?.elements.first(where: { _ in true }))
        #expect(held["grantedAt"]?.string == "2020-03-05T00:00:00Z")
        #expect(held["reason"]?["kind"]?.string == "streamingInactive")
        #expect(held["reason"]?["since"]?.string == "2020-07-05T12:00:00Z")
        #expect(Tool.summaryRow(run.errors, "overGranted") == ["0", "0"])
        #expect(Tool.summaryRow(run.errors, "heldAfterEntitlementEnded") == ["0", "1"])
        // Held content is not a discrepancy: under-granted issues at the end of June are.
        #expect(run.status == 2)
        let (onlyHeld, _) = try Self.audit([("carol", "table-6-2")], grants: ["carol,the-monthly,2020-03,2020-03-05T00:00:00Z"],
                                          at: ["2020-07-10T00:00:00Z"], extra: ["--fail-on-discrepancy"])
        #expect(Tool.summaryRow(onlyHeld.errors, "underGranted") == ["0"])
        #expect(onlyHeld.status == 0)
    }

    /// The same reader served the April issue on 25 April, during their lapse: a revenue leak,
    /// reported at every later instant, even once the issue is readable again.
    @Test func grantDuringLapse_isOverGranted_evenWhenReadableLater() throws {
        let (run, lines) = try Self.audit([("carol", "table-6-2")], grants: ["carol,the-monthly,2020-04,2020-04-25T00:00:00Z"],
                                          at: ["2020-04-30T00:00:00Z", "2020-06-01T00:00:00Z"])
        let asOf = Array(try #require(lines.first?["asOf"]?.elements))
        for result in asOf {
            let over = try #require(result["overGranted"]?.elements.first(where: { _ in true }))
            #expect(over["issue"]?.string == "2020-04")
            #expect(over["grantedAt"]?.string == "2020-04-25T00:00:00Z")
            #expect(over["reason"]?["kind"]?.string == "streamingInactive")
            #expect(over["reason"]?["since"]?.string == "2020-04-20T12:00:00Z")
        }
        #expect(asOf[1]["readable"]?.elements.map { $0.string! }.contains("2020-04") == true)
        #expect(Tool.summaryRow(run.errors, "overGranted") == ["1", "1"])
        // Not counted before it was served.
        let (early, _) = try Self.audit([("carol", "table-6-2")], grants: ["carol,the-monthly,2020-04,2020-04-25T00:00:00Z"], at: ["2020-04-24T00:00:00Z"])
        #expect(Tool.summaryRow(early.errors, "overGranted") == ["0"])
    }

    /// A grant without granted_at is judged at each audit instant.
    @Test func grantWithoutDate_isJudgedAtTheAuditInstant() throws {
        let (run, lines) = try Self.audit([("carol", "table-6-2")], grants: ["carol,the-monthly,2020-03"], at: ["2020-06-30T00:00:00Z", "2020-07-10T00:00:00Z"])
        let asOf = Array(try #require(lines.first?["asOf"]?.elements))
        #expect(Self.issues(asOf[0]["overGranted"]).isEmpty)
        let over = try #require(asOf[1]["overGranted"]?.elements.first(where: { _ in true }))
        #expect(over["issue"]?.string == "2020-03")
        #expect(over["grantedAt"]?.isNull == true)
        #expect(Self.issues(asOf[1]["heldAfterEntitlementEnded"]).isEmpty)
        #expect(Tool.summaryRow(run.errors, "overGranted") == ["0", "1"])
    }

    /// A streaming reader in December: the free December issue is readable by streaming too, and
    /// never under-granted; the November issue, not served, is.
    @Test func freeIssue_isNeverUnderGranted_evenWhenReadableForAnotherReason() throws {
        let receipt = #"""
            {"status": 0, "environment": "Production", "latest_receipt_info": [{"transaction_id": "8000001", "product_id": "com.example.reader",
             "purchase_date_ms": "1605873600000", "expires_date_ms": "1608465600000"}]}
            """#.replacingOccurrences(of: "\n", with: "")
        let grants = ["07", "08", "09", "10"].map { "dan,the-monthly,2020-\($0),2020-11-20T12:00:00Z" }
        let (run, lines) = try Self.audit([("dan", receipt)], grants: grants, at: ["2020-12-10T00:00:00Z"])
        let dan = try #require(lines.first)
        #expect(dan["readable"]?.elements.map { $0.string! } == ["2020-07", "2020-08", "2020-09", "2020-10", "2020-11", "2020-12"])
        #expect(Self.issues(dan["underGranted"]) == ["2020-11"])
        #expect(Tool.summaryRow(run.errors, "underGranted") == ["1"])
    }

    /// The summary counts each kind under the product of its line, worst first.
    @Test func summary_findingsByKindAndProduct_worstFirst() throws {
        let (run, _) = try Self.audit(
            [("alice", "table-6-1"), ("carol", "table-6-2")],
            grants: [
                "alice,the-monthly,2020-05,2020-05-10T00:00:00Z", "carol,the-monthly,2020-04,2020-04-25T00:00:00Z",
                "carol,the-monthly,2020-05,2020-05-01T00:00:00Z",
            ],
            at: ["2020-07-02T00:00:00Z"])
        let lines = run.errors.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("    overGranted ") })
        #expect(lines[start...].prefix(3).map { $0.split(separator: " ").map(String.init) } == [
            ["overGranted", "3"], ["com.example.reader", "2"], ["com.example.monthly", "1"],
        ])
        #expect(run.errors.contains("  by product (entitled / lines; a line counts under its latest auto-renewable product"))
    }
}
