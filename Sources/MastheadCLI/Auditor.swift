import Masthead
import MastheadFormats
import MastheadJSON

/// The shape of the audit's output lines.
enum AuditFormat: String {
    /// One JSON object per (user, publication), reasons as objects.
    case jsonl
    /// A header line, then one row per (user, publication); reasons by name.
    case csv
}

/// One over- or under-granted issue, kept for the HTML report.
struct AuditDiscrepancy {
    enum Kind: String {
        case overGranted, underGranted
    }

    var userId: String
    var publication: String
    var at: Instant
    var kind: Kind
    var issue: String
    /// The engine's reason, in words.
    var reason: String
}

/// Decides one user at a time and keeps the counts for the summary.
struct Auditor {
    /// What became of one input record.
    enum Outcome {
        /// The output lines for the user (possibly none) and, when a report is made, their discrepancies.
        case written([UInt8], [AuditDiscrepancy])
        /// A blank line.
        case skipped
        /// The line cannot be used; nothing is written for it.
        case rejected(String)
    }

    let decoder: ReceiptDecoder
    let engine: EntitlementEngine
    let instants: [Instant]
    let environment: Environment
    let grants: Grants?
    let format: AuditFormat
    /// Whether discrepancies are collected for a report.
    let collectsDiscrepancies: Bool
    private(set) var summary: AuditSummary
    /// Users of the grants file met in the input.
    private(set) var seenGrantUsers: Set<String> = []
    /// Grants naming an unknown publication or issue, by grants file line.
    private(set) var grantProblems: [(line: Int, message: String)] = []
    private var writer = JSONWriter(capacity: 4096)
    private var output: [UInt8] = []
    private var discrepancies: [AuditDiscrepancy] = []

    init(
        catalog: Catalog, instants: [Instant], environment: Environment, grants: Grants? = nil, format: AuditFormat = .jsonl,
        collectsDiscrepancies: Bool = false
    ) {
        decoder = ReceiptDecoder(catalog: catalog)
        engine = EntitlementEngine(catalog: catalog)
        self.instants = instants
        self.environment = environment
        self.grants = grants
        self.format = format
        self.collectsDiscrepancies = collectsDiscrepancies
        summary = AuditSummary(instants: instants)
    }

    /// The CSV header: `user_id,publication`, then per instant `status`, `readable` (and with grants
    /// `over_granted`, `under_granted`), suffixed `@INSTANT` when there are several instants.
    static func csvHeader(instants: [Instant], reconciles: Bool) -> String {
        var columns = ["user_id", "publication"]
        for instant in instants {
            let suffix = instants.count == 1 ? "" : "@\(instant)"
            columns += ["status", "readable"].map { $0 + suffix }
            if reconciles { columns += ["over_granted", "under_granted"].map { $0 + suffix } }
        }
        return columns.joined(separator: ",") + "\n"
    }

    /// Decides one record.
    mutating func audit(_ record: AuditRecord) -> Outcome {
        switch record {
        case .line(let block, _, let range): return withExtendedLifetime(block) { audit(block.bytes(range)) }
        case .user(let id, let history):
            summary.lines += 1
            return decide(userId: id, history: history)
        }
    }

    /// Decides one receipts line, `{"user_id": ..., "receipt": {...}}`.
    mutating func audit(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped }
        summary.lines += 1
        let read: Result<(userId: String, history: PurchaseHistory), FormatError>
        do {
            // Parsed in place: the line's bytes are not copied, the values read not reference-counted.
            read = try JSONDocument.withUnsafeParsing(line) { root in Result { () throws(FormatError) in try readUser(root) } }
        } catch {
            summary.rejectedLines += 1
            return .rejected(error.description)
        }
        switch read {
        case .success(let user):
            return decide(userId: user.userId, history: user.history)
        case .failure(let error):
            summary.rejectedLines += 1
            return .rejected("\(error)")
        }
    }

    /// The user id and purchase history of one line's object.
    private func readUser(_ root: UnsafeJSONValue) throws(FormatError) -> (userId: String, history: PurchaseHistory) {
        guard root.kind == .object else { throw FormatError.invalidValue(path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt") }
        guard let userValue = root.member("user_id"), let userId = userValue.string ?? userValue.numberText, !userId.isEmpty else {
            throw FormatError.missingField(path: "$.user_id", line: 1)
        }
        guard let receiptValue = root.member("receipt") else { throw FormatError.missingField(path: "$.receipt", line: 1) }
        return (userId, try decoder.decode(receiptValue, path: "$.receipt").history)
    }

    /// Decides one user's history at every instant and writes their lines.
    mutating func decide(userId: String, history: PurchaseHistory) -> Outcome {
        let granted = grants?.byUser[userId] ?? []
        // One evaluation per instant; the publications (those the user's transactions grant,
        // and those granted without any) are the same at every instant.
        var perInstant = instants.map { engine.evaluate(history, at: $0, environment: environment) }
        if grants != nil, !granted.isEmpty {
            seenGrantUsers.insert(userId)
            for publicationId in Set(granted.map(\.publication)).sorted() where !perInstant[0].publications.contains(where: { $0.publication.id == publicationId }) {
                guard let publication = engine.catalog.publication(publicationId) else { continue }
                for index in instants.indices {
                    perInstant[index].publications.append(engine.evaluate(history, publication: publication, at: instants[index], environment: environment))
                }
            }
        }
        for (index, entitlements) in perInstant.enumerated() { summary.record(entitlements, instant: index) }
        output.removeAll(keepingCapacity: true)
        discrepancies.removeAll(keepingCapacity: true)
        for (position, first) in perInstant[0].publications.enumerated() {
            let publicationGrants = granted.filter { $0.publication == first.publication.id }
            let results = perInstant.map { entitlements in
                let publication = entitlements.publications[position]
                return (entitlement: publication, reconciliation: reconcile(publication, granted: publicationGrants, userId: userId))
            }
            switch format {
            case .jsonl: writeJSON(userId: userId, results)
            case .csv: writeCSV(userId: userId, results)
            }
        }
        for grant in granted where engine.catalog.publication(grant.publication) == nil {
            grantProblems.append((grant.line, "unknown publication \(grant.publication)"))
            summary.unknownGrantPublications += 1
        }
        return .written(output, discrepancies)
    }

    /// Over- and under-granted issues of one publication at one instant (nil without grants).
    typealias Reconciliation = (over: [(issue: Issue, denial: Denial)], under: [ReadableIssue])?

    private mutating func writeJSON(userId: String, _ results: [(entitlement: PublicationEntitlement, reconciliation: Reconciliation)]) {
        writer.reset()
        writer.beginObject()
        writer.field("user_id", userId)
        writer.field("publication", results[0].entitlement.publication.id)
        if results.count == 1 {
            writeJSONResult(results[0])
        } else {
            writer.key("asOf")
            writer.beginArray()
            for result in results {
                writer.beginObject()
                writer.field("at", result.entitlement.at.description)
                writeJSONResult(result)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        writer.newline()
        output += writer.bytes
    }

    /// `status` and `readable` of one instant, and `overGranted` and `underGranted` with the engine's reasons.
    private mutating func writeJSONResult(_ result: (entitlement: PublicationEntitlement, reconciliation: Reconciliation)) {
        writer.field("status", result.entitlement.status.state.rawValue)
        writer.key("readable")
        writer.beginArray()
        for entry in result.entitlement.readable { writer.string(entry.issue.id) }
        writer.endArray()
        guard let reconciliation = result.reconciliation else { return }
        writer.key("overGranted")
        writer.beginArray()
        for (issue, denial) in reconciliation.over {
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.key("reason")
            EntitlementJSON.writeDenial(denial, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.key("underGranted")
        writer.beginArray()
        for entry in reconciliation.under {
            writer.beginObject()
            writer.field("issue", entry.issue.id)
            writer.key("reason")
            EntitlementJSON.writeReason(entry.reasons[0], result.entitlement, into: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    private mutating func writeCSV(userId: String, _ results: [(entitlement: PublicationEntitlement, reconciliation: Reconciliation)]) {
        var row = [userId, results[0].entitlement.publication.id]
        for (entitlement, reconciliation) in results {
            row.append(entitlement.status.state.rawValue)
            row.append(entitlement.readable.map(\.issue.id).joined(separator: " "))
            if let reconciliation {
                row.append(reconciliation.over.map { "\($0.issue.id)=\($0.denial.name)" }.joined(separator: " "))
                row.append(reconciliation.under.map { "\($0.issue.id)=\($0.reasons[0].name)" }.joined(separator: " "))
            }
        }
        output += CSV.row(row).utf8
    }

    /// Sorts the grants of one publication counted at the entitlement's instant into over-granted
    /// (served, not entitled) and under-granted (entitled, never served; free issues aside) issues.
    private mutating func reconcile(_ entitlement: PublicationEntitlement, granted: [Grants.Grant], userId: String) -> Reconciliation {
        guard grants != nil else { return nil }
        var servedIssues: Set<String> = []
        for grant in granted where grant.grantedAt.map({ $0 <= entitlement.at }) ?? true {
            if entitlement.publication.index(ofIssue: grant.issue) == nil {
                if entitlement.at == instants[0] {
                    grantProblems.append((grant.line, "publication \(grant.publication) has no issue \(grant.issue)"))
                    summary.unknownGrantIssues += 1
                }
            } else {
                servedIssues.insert(grant.issue)
            }
        }
        var over: [(issue: Issue, denial: Denial)] = []
        for issue in entitlement.publication.issues where servedIssues.contains(issue.id) {
            if case .notReadable(let denial)? = entitlement.access(toIssue: issue.id) { over.append((issue, denial)) }
        }
        let under = entitlement.readable.filter { !servedIssues.contains($0.issue.id) && $0.reasons != [.free] }
        let instant = instants.firstIndex(of: entitlement.at) ?? 0
        summary.overGrantedByInstant[instant] += over.count
        summary.underGrantedByInstant[instant] += under.count
        if collectsDiscrepancies {
            let publication = entitlement.publication.id
            for (issue, denial) in over {
                discrepancies.append(
                    AuditDiscrepancy(userId: userId, publication: publication, at: entitlement.at, kind: .overGranted, issue: issue.id, reason: denial.explanation))
            }
            for entry in under {
                discrepancies.append(
                    AuditDiscrepancy(
                        userId: userId, publication: publication, at: entitlement.at, kind: .underGranted, issue: entry.issue.id,
                        reason: entry.reasons[0].explanation(in: entitlement)))
            }
        }
        return (over, under)
    }
}

/// RFC 4180 rows: a field holding a comma, quote, or line break is quoted, quotes doubled.
enum CSV {
    static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }

    static func field(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" { quoted += "\"" }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
