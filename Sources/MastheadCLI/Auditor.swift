import Masthead
import MastheadFormats
import MastheadJSON
import MastheadReports

/// The shape of the audit's output lines.
enum AuditFormat: String {
    /// One JSON object per (user, publication), reasons as objects.
    case jsonl
    /// A header line, then one row per (user, publication); reasons by name.
    case csv
}

/// The findings of one kind on one (user, publication) line at one audit instant, kept for the
/// HTML report: the issues with the reasons in words.
struct AuditFinding {
    var kind: GrantFinding
    /// The product the line counts under at the instant (``AuditSummary/productKey(_:)``).
    var product: String
    /// The index of the audit instant.
    var instant: Int
    var userId: String
    var publication: String
    var issues: [(issue: String, detail: String)]
}

/// Decides one user at a time and keeps the counts for the summary.
struct Auditor {
    /// What became of one input record.
    enum Outcome {
        /// The output lines for the user (possibly none) and, when a report is made, their findings.
        case written([UInt8], [AuditFinding])
        /// A blank line, or a user of another shard.
        case skipped
        /// The line cannot be used; nothing is written for it.
        case rejected(String)
    }

    /// A grant of a known issue with the engine's decision at the instant it was served.
    struct JudgedGrant {
        var grant: Grants.Grant
        /// The issue's index in the publication.
        var issueIndex: Int
        /// Why the reader could not read the issue when it was served; nil when they could, or
        /// when the grant has no `granted_at` (it is then judged at each audit instant).
        var deniedWhenServed: Denial?
    }

    /// What reconciliation found on one (user, publication) line at one instant, in publish order.
    struct Reconciliation {
        var over: [(issue: Issue, grantedAt: Instant?, denial: Denial)] = []
        var under: [ReadableIssue] = []
        var held: [(issue: Issue, grantedAt: Instant, denial: Denial)] = []
    }

    /// One instant's answer for a (user, publication) line, with its reconciliation when there are grants.
    typealias Decided = (entitlement: PublicationEntitlement, reconciliation: Reconciliation?)

    let decoder: ReceiptDecoder
    let engine: EntitlementEngine
    let instants: [Instant]
    let environment: Environment
    let grants: Grants?
    let format: AuditFormat
    /// Only the users of this part of the input, when sharded.
    let shard: Shard?
    /// Whether findings are collected for a report.
    let collectsFindings: Bool
    private(set) var summary: AuditSummary
    /// Users of the grants file met in the input.
    private(set) var seenGrantUsers: Set<String> = []
    /// Grants naming an unknown publication or issue, by grants file line.
    private(set) var grantProblems: [(line: Int, message: String)] = []
    private var writer = JSONWriter(capacity: 4096)
    private var output: [UInt8] = []
    private var findings: [AuditFinding] = []

    init(
        catalog: Catalog, instants: [Instant], environment: Environment, grants: Grants? = nil, format: AuditFormat = .jsonl,
        shard: Shard? = nil, collectsFindings: Bool = false
    ) {
        decoder = ReceiptDecoder(catalog: catalog)
        engine = EntitlementEngine(catalog: catalog)
        self.instants = instants
        self.environment = environment
        self.grants = grants
        self.format = format
        self.shard = shard
        self.collectsFindings = collectsFindings
        summary = AuditSummary(instants: instants)
    }

    /// The CSV header: `user_id,publication`, then per instant `status`, `readable` (and with grants
    /// `over_granted`, `under_granted`, `held_after_entitlement_ended`), suffixed `@INSTANT` when
    /// there are several instants.
    static func csvHeader(instants: [Instant], reconciles: Bool) -> String {
        var columns = ["user_id", "publication"]
        for instant in instants {
            let suffix = instants.count == 1 ? "" : "@\(instant)"
            columns += ["status", "readable"].map { $0 + suffix }
            if reconciles { columns += ["over_granted", "under_granted", "held_after_entitlement_ended"].map { $0 + suffix } }
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

    /// Decides one receipts line, `{"user_id": ..., "receipt": {...}}`. With a shard, a line of
    /// another shard is skipped (and counted), and a line without a readable user id is reported by
    /// the first shard only.
    mutating func audit(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped }
        let read: Result<(userId: String, history: PurchaseHistory)?, LineFailure>
        do {
            // Parsed in place: the line's bytes are not copied, the values read not reference-counted.
            read = try JSONDocument.withUnsafeParsing(line) { root in Result { () throws(LineFailure) in try readUser(root) } }
        } catch {
            return reject(error.description, userId: nil)
        }
        switch read {
        case .success(let user?):
            summary.lines += 1
            return decide(userId: user.userId, history: user.history)
        case .success(nil):
            summary.otherShardLines += 1
            return .skipped
        case .failure(let failure):
            return reject("\(failure.error)", userId: failure.userId)
        }
    }

    /// Counts a rejected line for this shard, or as another shard's.
    private mutating func reject(_ reason: String, userId: String?) -> Outcome {
        if let shard, userId.map({ !shard.contains($0) }) ?? (shard.index != 1) {
            summary.otherShardLines += 1
            return .skipped
        }
        summary.lines += 1
        summary.rejectedLines += 1
        return .rejected(reason)
    }

    /// The user id and purchase history of one line's object; nil for a user of another shard.
    private func readUser(_ root: UnsafeJSONValue) throws(LineFailure) -> (userId: String, history: PurchaseHistory)? {
        guard root.kind == .object else {
            throw LineFailure(userId: nil, error: .invalidValue(path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt"))
        }
        guard let userValue = root.member("user_id"), let userId = userValue.string ?? userValue.numberText, !userId.isEmpty else {
            throw LineFailure(userId: nil, error: .missingField(path: "$.user_id", line: 1))
        }
        if let shard, !shard.contains(userId) { return nil }
        guard let receiptValue = root.member("receipt") else { throw LineFailure(userId: userId, error: .missingField(path: "$.receipt", line: 1)) }
        do {
            return (userId, try decoder.decode(receiptValue, path: "$.receipt").history)
        } catch {
            throw LineFailure(userId: userId, error: error)
        }
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
        findings.removeAll(keepingCapacity: true)
        for (position, first) in perInstant[0].publications.enumerated() {
            let judged = grants == nil ? [] : judge(granted.filter { $0.publication == first.publication.id }, publication: first.publication, history: history)
            var results: [Decided] = []
            for (index, entitlements) in perInstant.enumerated() {
                let entitlement = entitlements.publications[position]
                results.append((entitlement, grants == nil ? nil : reconcile(entitlement, judged, instant: index, userId: userId)))
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
        return .written(output, findings)
    }

    /// The grants of one publication with the engine's decision at the instant each was served
    /// (one evaluation per stretch of time in which the answer does not change). Grants of issues
    /// the publication does not have are reported and left out.
    private mutating func judge(_ grants: [Grants.Grant], publication: Publication, history: PurchaseHistory) -> [JudgedGrant] {
        var judged: [JudgedGrant] = []
        var answer: PublicationEntitlement?
        for grant in grants.sorted(by: { ($0.grantedAt ?? .distantFuture, $0.line) < ($1.grantedAt ?? .distantFuture, $1.line) }) {
            guard let issueIndex = publication.index(ofIssue: grant.issue) else {
                grantProblems.append((grant.line, "publication \(grant.publication) has no issue \(grant.issue)"))
                summary.unknownGrantIssues += 1
                continue
            }
            var denied: Denial?
            if let at = grant.grantedAt {
                if answer.map({ !$0.stable.contains(at) }) ?? true {
                    answer = engine.evaluate(history, publication: publication, at: at, environment: environment)
                }
                if case .notReadable(let denial)? = answer?.asOf(at).access(toIssue: grant.issue) { denied = denial }
            }
            judged.append(JudgedGrant(grant: grant, issueIndex: issueIndex, deniedWhenServed: denied))
        }
        return judged.sorted { ($0.issueIndex, $0.grant.grantedAt ?? .distantFuture) < ($1.issueIndex, $1.grant.grantedAt ?? .distantFuture) }
    }

    /// Sorts the issues of one publication at the entitlement's instant: over-granted (a grant by
    /// then was made when the reader was not entitled: at `granted_at`, or at the instant for a
    /// grant without one), held after the entitlement ended (every grant was entitled when made,
    /// the issue is not readable now), under-granted (readable now, not served by then; free
    /// issues never are).
    private mutating func reconcile(_ entitlement: PublicationEntitlement, _ judged: [JudgedGrant], instant: Int, userId: String) -> Reconciliation {
        var result = Reconciliation()
        var served = [Bool](repeating: false, count: entitlement.publication.issues.count)
        var position = 0
        while position < judged.count {
            // The grants of one issue made by the instant, earliest first.
            let issueIndex = judged[position].issueIndex
            var grants: [JudgedGrant] = []
            while position < judged.count && judged[position].issueIndex == issueIndex {
                if judged[position].grant.grantedAt.map({ $0 <= entitlement.at }) ?? true { grants.append(judged[position]) }
                position += 1
            }
            guard let first = grants.first else { continue }
            served[issueIndex] = true
            let issue = entitlement.publication.issues[issueIndex]
            if let leak = grants.first(where: { $0.deniedWhenServed != nil }), let denial = leak.deniedWhenServed {
                result.over.append((issue, leak.grant.grantedAt, denial))
            } else if case .notReadable(let denial)? = entitlement.access(toIssue: issue.id) {
                if grants.contains(where: { $0.grant.grantedAt == nil }) {
                    result.over.append((issue, nil, denial))
                } else if let grantedAt = first.grant.grantedAt {
                    result.held.append((issue, grantedAt, denial))
                }
            }
        }
        result.under = entitlement.readable.filter { entry in
            !entry.issue.isFree && !(entitlement.publication.index(ofIssue: entry.issue.id).map { served[$0] } ?? false)
        }
        let product = AuditSummary.productKey(entitlement)
        summary.count(.overGranted, product: product, instant: instant, result.over.count)
        summary.count(.underGranted, product: product, instant: instant, result.under.count)
        summary.count(.heldAfterEntitlementEnded, product: product, instant: instant, result.held.count)
        if collectsFindings {
            func keep(_ kind: GrantFinding, _ issues: [(issue: String, detail: String)]) {
                guard !issues.isEmpty else { return }
                findings.append(
                    AuditFinding(kind: kind, product: product, instant: instant, userId: userId, publication: entitlement.publication.id, issues: issues))
            }
            keep(.overGranted, result.over.map { ($0.issue.id, Self.served($0.grantedAt) + $0.denial.explanation) })
            keep(.underGranted, result.under.map { ($0.issue.id, $0.reasons[0].explanation(in: entitlement)) })
            keep(.heldAfterEntitlementEnded, result.held.map { ($0.issue.id, Self.served($0.grantedAt) + "now: " + $0.denial.explanation) })
        }
        return result
    }

    /// "served DATE: " for a dated grant, "" for one without a date.
    private static func served(_ instant: Instant?) -> String { instant.map { "served \(CivilTime.readable($0)): " } ?? "" }

    private mutating func writeJSON(userId: String, _ results: [Decided]) {
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

    /// `status` and `readable` of one instant, and `overGranted`, `underGranted` and
    /// `heldAfterEntitlementEnded` with the engine's reasons and when each issue was served.
    private mutating func writeJSONResult(_ result: Decided) {
        writer.field("status", result.entitlement.status.state.rawValue)
        writer.key("readable")
        writer.beginArray()
        for entry in result.entitlement.readable { writer.string(entry.issue.id) }
        writer.endArray()
        guard let reconciliation = result.reconciliation else { return }
        writer.key("overGranted")
        writer.beginArray()
        for (issue, grantedAt, denial) in reconciliation.over {
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.field("grantedAt", grantedAt?.description)
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
        writer.key("heldAfterEntitlementEnded")
        writer.beginArray()
        for (issue, grantedAt, denial) in reconciliation.held {
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.field("grantedAt", grantedAt.description)
            writer.key("reason")
            EntitlementJSON.writeDenial(denial, into: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    private mutating func writeCSV(userId: String, _ results: [Decided]) {
        var row = [userId, results[0].entitlement.publication.id]
        for (entitlement, reconciliation) in results {
            row.append(entitlement.status.state.rawValue)
            row.append(entitlement.readable.map(\.issue.id).joined(separator: " "))
            if let reconciliation {
                row.append(reconciliation.over.map { "\($0.issue.id)=\($0.denial.name)" }.joined(separator: " "))
                row.append(reconciliation.under.map { "\($0.issue.id)=\($0.reasons[0].name)" }.joined(separator: " "))
                row.append(reconciliation.held.map { "\($0.issue.id)=\($0.denial.name)" }.joined(separator: " "))
            }
        }
        output += CSV.row(row).utf8
    }
}

/// Why a receipts line cannot be used, with its user when the line names one (the user decides
/// the line's shard).
private struct LineFailure: Error {
    var userId: String?
    var error: FormatError
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
