import Dispatch
import Glibc
import Masthead
import MastheadFormats
import MastheadJSON

/// `masthead audit`: one JSON line in per user, one JSON line out per (user, publication).
struct AuditCommand {
    static let name = "audit"
    let catalogPath: String
    let receiptsPath: String
    /// The as-of instants, in the order given; one result per instant.
    let instants: [Instant]
    let environment: Environment
    let outputPath: String?
    let grantsPath: String?
    let failOnDiscrepancy: Bool

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(
            arguments, options: ["catalog", "receipts", "at", "environment", "output", "grants"], flagNames: ["fail-on-discrepancy"],
            command: Self.name)
        grantsPath = parsed.value("grants")
        failOnDiscrepancy = parsed.flag("fail-on-discrepancy")
        catalogPath = try parsed.required("catalog", command: Self.name)
        receiptsPath = try parsed.required("receipts", command: Self.name)
        var instants: [Instant] = []
        for text in parsed.all("at") { instants.append(try CommonOptions.instant(text, now: now, command: Self.name)) }
        self.instants = instants.isEmpty ? [now] : instants
        environment = try CommonOptions.environment(parsed.value("environment"), command: Self.name)
        outputPath = parsed.value("output")
    }

    /// Lines read before the workers decide them together; bounds memory to a few megabytes.
    static let batchLines = 4096

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalog(catalogPath)
        let grants = try grantsPath.map { (path) throws(CLIError) in try Grants.load(path) }
        let reader = try LineReader(path: receiptsPath)
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        // One auditor per core; a batch of lines is split between them and written back in input order.
        let workers = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        var auditors = (0..<workers).map { _ in Auditor(catalog: catalog, instants: instants, environment: environment, grants: grants) }
        var batch: [(number: Int, line: [UInt8])] = []
        batch.reserveCapacity(Self.batchLines)
        var outcomes: [Auditor.Outcome] = []
        func decideBatch() throws(CLIError) {
            outcomes = Array(repeating: .skipped, count: batch.count)
            let count = batch.count
            auditors.withUnsafeMutableBufferPointer { auditorSlots in
                outcomes.withUnsafeMutableBufferPointer { outcomeSlots in
                    batch.withUnsafeBufferPointer { lines in
                        let shared = DisjointSlots(auditors: auditorSlots.baseAddress!, outcomes: outcomeSlots.baseAddress!, lines: lines.baseAddress!)
                        DispatchQueue.concurrentPerform(iterations: workers) { worker in
                            var index = worker * count / workers
                            let end = (worker + 1) * count / workers
                            while index < end {
                                shared.outcomes[index] = shared.lines[index].line.withUnsafeBufferPointer { shared.auditors[worker].audit($0) }
                                index += 1
                            }
                        }
                    }
                }
            }
            for (entry, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .written(let bytes): try destination.write(bytes)
                case .skipped: break
                case .rejected(let reason): try errors.write("\(receiptsPath):\(entry.number): \(reason)\n")
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        do {
            while let line = try reader.next({ Array($0) }) {
                batch.append((reader.lineNumber, line))
                if batch.count == Self.batchLines { try decideBatch() }
            }
            try decideBatch()
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.cannotRead(path: receiptsPath, reason: "\(error)")
        }
        try destination.finish()
        var summary = auditors.map(\.summary).reduce(AuditSummary()) { $0.adding($1) }
        summary.reconciled = grants != nil
        if let grants {
            // Grants the audit could not place: unknown users, publications, issues.
            var problems = auditors.flatMap(\.grantProblems)
            let seen = auditors.reduce(into: Set<String>()) { $0.formUnion($1.seenGrantUsers) }
            for (user, list) in grants.byUser where !seen.contains(user) {
                for grant in list { problems.append((grant.line, "unknown user \(user) (no receipt line)")) }
                summary.unknownGrantUsers += list.count
            }
            for problem in problems.sorted(by: { $0.line < $1.line }) {
                try errors.write("\(grants.path):\(problem.line): \(problem.message)\n")
            }
        }
        try errors.write(summary.rendered)
        if summary.rejectedLines > 0 { return 1 }
        return failOnDiscrepancy && summary.discrepancies > 0 ? 2 : 0
    }
}

/// The buffers the audit workers share: worker `w` touches only auditor `w` and its own range of
/// lines and outcomes, so no two threads ever write the same element.
private struct DisjointSlots: @unchecked Sendable {
    let auditors: UnsafeMutablePointer<Auditor>
    let outcomes: UnsafeMutablePointer<Auditor.Outcome>
    let lines: UnsafePointer<(number: Int, line: [UInt8])>
}

/// Decides one input line at a time and keeps the counts for the summary.
struct Auditor {
    /// What became of one line.
    enum Outcome {
        /// The output lines for the user (possibly none).
        case written([UInt8])
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
    private(set) var summary = AuditSummary()
    /// Users of the grants file met in the receipts.
    private(set) var seenGrantUsers: Set<String> = []
    /// Grants naming an unknown publication or issue, by grants file line.
    private(set) var grantProblems: [(line: Int, message: String)] = []
    private var writer = JSONWriter(capacity: 4096)

    init(catalog: Catalog, instants: [Instant], environment: Environment, grants: Grants? = nil) {
        decoder = ReceiptDecoder(catalog: catalog)
        engine = EntitlementEngine(catalog: catalog)
        self.instants = instants
        summary.byInstant = Array(repeating: [:], count: instants.count)
        summary.instants = instants
        self.environment = environment
        self.grants = grants
    }

    mutating func audit(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped }
        summary.lines += 1
        let root: JSONValue
        do {
            root = try JSONDocument(parsing: Array(line)).root
        } catch {
            summary.rejectedLines += 1
            return .rejected(error.description)
        }
        do {
            guard root.kind == .object else { throw FormatError.invalidValue(path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt") }
            guard let userValue = root.member("user_id"), let userId = userValue.string ?? userValue.numberText, !userId.isEmpty else {
                throw FormatError.missingField(path: "$.user_id", line: 1)
            }
            guard let receiptValue = root.member("receipt") else { throw FormatError.missingField(path: "$.receipt", line: 1) }
            let receipt = try decoder.decode(receiptValue, path: "$.receipt")
            let granted = grants?.byUser[userId] ?? []
            // One evaluation per instant; the publications (those the user's transactions grant,
            // and those granted without any) are the same at every instant.
            var perInstant = instants.map { engine.evaluate(receipt.history, at: $0, environment: environment) }
            if grants != nil, !granted.isEmpty {
                seenGrantUsers.insert(userId)
                for publicationId in Set(granted.map(\.publication)).sorted() where !perInstant[0].publications.contains(where: { $0.publication.id == publicationId }) {
                    guard let publication = engine.catalog.publication(publicationId) else { continue }
                    for index in instants.indices {
                        perInstant[index].publications.append(
                            engine.evaluate(receipt.history, publication: publication, at: instants[index], environment: environment))
                    }
                }
            }
            for (index, entitlements) in perInstant.enumerated() { summary.record(entitlements, instant: index) }
            writer.reset()
            for (position, first) in perInstant[0].publications.enumerated() {
                let publicationGrants = granted.filter { $0.publication == first.publication.id }
                writer.beginObject()
                writer.field("user_id", userId)
                writer.field("publication", first.publication.id)
                if instants.count == 1 {
                    writeResult(first, granted: publicationGrants)
                } else {
                    writer.key("asOf")
                    writer.beginArray()
                    for entitlements in perInstant {
                        writer.beginObject()
                        writer.field("at", entitlements.at.description)
                        writeResult(entitlements.publications[position], granted: publicationGrants)
                        writer.endObject()
                    }
                    writer.endArray()
                }
                writer.endObject()
                writer.newline()
            }
            for grant in granted where engine.catalog.publication(grant.publication) == nil {
                grantProblems.append((grant.line, "unknown publication \(grant.publication)"))
                summary.unknownGrantPublications += 1
            }
            return .written(writer.bytes)
        } catch {
            summary.rejectedLines += 1
            return .rejected("\(error)")
        }
    }

    /// Writes `status` and `readable` (and the reconciliation when grants are given) of one instant.
    private mutating func writeResult(_ publication: PublicationEntitlement, granted: [Grants.Grant]) {
        writer.field("status", publication.status.state.rawValue)
        writer.key("readable")
        writer.beginArray()
        for entry in publication.readable { writer.string(entry.issue.id) }
        writer.endArray()
        if grants != nil { reconcile(publication, granted: granted.filter { $0.grantedAt.map { $0 <= publication.at } ?? true }) }
    }

    /// Writes `overGranted` (served, not entitled as of the instant) and `underGranted` (entitled
    /// but never served; free issues aside) with the engine's reasons.
    private mutating func reconcile(_ entitlement: PublicationEntitlement, granted: [Grants.Grant]) {
        var servedIssues: Set<String> = []
        for grant in granted {
            if entitlement.publication.index(ofIssue: grant.issue) == nil {
                if entitlement.at == instants[0] {
                    grantProblems.append((grant.line, "publication \(grant.publication) has no issue \(grant.issue)"))
                    summary.unknownGrantIssues += 1
                }
            } else {
                servedIssues.insert(grant.issue)
            }
        }
        writer.key("overGranted")
        writer.beginArray()
        for issue in entitlement.publication.issues where servedIssues.contains(issue.id) {
            guard case .notReadable(let denial)? = entitlement.access(toIssue: issue.id) else { continue }
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.key("reason")
            EntitlementJSON.writeDenial(denial, into: &writer)
            writer.endObject()
            summary.overGranted += 1
        }
        writer.endArray()
        writer.key("underGranted")
        writer.beginArray()
        for entry in entitlement.readable where !servedIssues.contains(entry.issue.id) && entry.reasons != [.free] {
            writer.beginObject()
            writer.field("issue", entry.issue.id)
            writer.key("reason")
            EntitlementJSON.writeReason(entry.reasons[0], entitlement, into: &writer)
            writer.endObject()
            summary.underGranted += 1
        }
        writer.endArray()
    }
}

/// The counts an audit reports at the end.
struct AuditSummary {
    var lines = 0
    var users = 0
    var rejectedLines = 0
    var unknownProductTransactions = 0
    var outputLines = 0
    /// The as-of instants, in order.
    var instants: [Instant] = []
    /// Per as-of instant (in order): the count of (user, publication) lines in each state.
    var byInstant: [[SubscriptionState: Int]] = []
    /// Whether grants were reconciled (their lines then always appear in the summary).
    var reconciled = false
    var overGranted = 0
    var underGranted = 0
    var unknownGrantUsers = 0
    var unknownGrantPublications = 0
    var unknownGrantIssues = 0

    /// Discrepancies found by reconciliation.
    var discrepancies: Int { overGranted + underGranted }

    mutating func record(_ entitlements: UserEntitlements, instant index: Int) {
        if index == 0 {
            users += 1
            unknownProductTransactions += entitlements.unknownTransactionCount
            outputLines += entitlements.publications.count
        }
        for publication in entitlements.publications { byInstant[index][publication.status.state, default: 0] += 1 }
    }

    /// The counts of two parts of one audit together.
    func adding(_ other: AuditSummary) -> AuditSummary {
        var total = self
        total.lines += other.lines
        total.users += other.users
        total.rejectedLines += other.rejectedLines
        total.unknownProductTransactions += other.unknownProductTransactions
        total.outputLines += other.outputLines
        if total.byInstant.isEmpty {
            total.byInstant = Array(repeating: [:], count: other.byInstant.count)
            total.instants = other.instants
        }
        for (index, states) in other.byInstant.enumerated() {
            for (state, count) in states { total.byInstant[index][state, default: 0] += count }
        }
        total.overGranted += other.overGranted
        total.underGranted += other.underGranted
        total.unknownGrantUsers += other.unknownGrantUsers
        total.unknownGrantPublications += other.unknownGrantPublications
        total.unknownGrantIssues += other.unknownGrantIssues
        return total
    }

    var rendered: String {
        var text = "audit summary\n"
        text += "  lines read            \(lines)\n"
        text += "  users                 \(users)\n"
        text += "  rejected lines        \(rejectedLines)\n"
        text += "  unknown products      \(unknownProductTransactions) transaction(s)\n"
        text += "  (user, publication)   \(outputLines)\n"
        if instants.count > 1 {
            text += "  as of                 " + instants.map { $0.description.padding(24) }.joined().trimmingSpaces + "\n"
        }
        for state in SubscriptionState.allCases {
            text += "    \(state.rawValue.padding(18))" + byInstant.map { String($0[state] ?? 0).padding(24) }.joined().trimmingSpaces + "\n"
        }
        if overGranted + underGranted + unknownGrantUsers + unknownGrantPublications + unknownGrantIssues > 0 || reconciled {
            text += "  overGranted           \(overGranted)\n"
            text += "  underGranted          \(underGranted)\n"
            text += "  grants of unknown users \(unknownGrantUsers), publications \(unknownGrantPublications), issues \(unknownGrantIssues)\n"
        }
        return text
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - count)) }
}
