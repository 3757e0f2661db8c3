import Masthead
import MastheadFormats
import MastheadJSON

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
        /// The line carries signed data and no app is configured: the audit stops there.
        case signedWithoutApp
    }

    let decoder: ReceiptDecoder
    /// Verifies and reads signed lines; nil when no app is configured.
    let signedData: SignedDataVerifier?
    let engine: EntitlementEngine
    let instants: [Instant]
    let environment: Environment
    let grants: Grants?
    let format: AuditFormat
    /// Only the users of this part of the input, when sharded.
    let shard: Shard?
    /// Whether findings are collected for a report.
    let collectsFindings: Bool
    /// The counts of the records decided so far.
    var summary: AuditSummary
    /// Users of the grants file met in the input.
    private(set) var seenGrantUsers: Set<ExactKey> = []
    /// Grants naming an unknown publication or issue, by grants file line.
    var grantProblems: [(line: Int, message: String)] = []
    /// The output being written for the current user, and the findings kept for the report.
    var writer = JSONWriter(capacity: 4096)
    var output: [UInt8] = []
    var findings: [AuditFinding] = []

    init(
        catalog: Catalog, instants: [Instant], environment: Environment, signedData: SignedDataVerifier? = nil, grants: Grants? = nil,
        format: AuditFormat = .jsonl, shard: Shard? = nil, collectsFindings: Bool = false
    ) {
        decoder = ReceiptDecoder(catalog: catalog)
        self.signedData = signedData
        engine = EntitlementEngine(catalog: catalog)
        self.instants = instants
        self.environment = environment
        self.grants = grants
        self.format = format
        self.shard = shard
        self.collectsFindings = collectsFindings
        summary = AuditSummary(instants: instants)
    }

    /// Decides one record.
    mutating func audit(_ record: AuditRecord) -> Outcome {
        switch record {
        case .line(let block, _, let range): return withExtendedLifetime(block) { audit(block.bytes(range)) }
        case .tooLong(_, _, let limit): return reject(Self.tooLongReason(limit: limit), userId: nil)
        case .user(let id, let history):
            summary.lines += 1
            return decide(userId: id, history: history)
        }
    }

    /// Decides one receipts line, `{"user_id": ..., "receipt": {...}}` or
    /// `{"user_id": ..., "signedTransactions": [...], "signedRenewalInfos": [...]}` (every token
    /// verified unless the configuration trusts them already), with or without the publisher's
    /// `grants`, or `{"user_id": ..., "grants": [...]}`. With a shard, a line of another
    /// shard is skipped (and counted), and a line without a readable user id is reported by the
    /// first shard only.
    mutating func audit(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped }
        let read: Result<LineRead, LineFailure>
        do {
            // Parsed in place: the line's bytes are not copied, the values read not reference-counted.
            read = try JSONDocument.withUnsafeParsing(line) { root in Result { () throws(LineFailure) in try readUser(root) } }
        } catch {
            return reject(error.description, userId: nil)
        }
        switch read {
        case .success(.user(let userId, let history, let signed)):
            summary.lines += 1
            if signed { summary.signedLines += 1 }
            return decide(userId: userId, history: history)
        case .success(.otherShard):
            summary.otherShardLines += 1
            return .skipped
        case .success(.signedWithoutApp):
            return .signedWithoutApp
        case .failure(let failure):
            return reject("\(failure.error)", userId: failure.userId)
        }
    }

    /// Why a line longer than `limit` bytes is rejected.
    static func tooLongReason(limit: Int) -> String {
        "the line is longer than \(limit) bytes (the line limit), skipped unread"
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

    /// The user id and purchase history of one line's object, or why there is none to decide.
    private func readUser(_ root: UnsafeJSONValue) throws(LineFailure) -> LineRead {
        let userId: String
        do { userId = try ReceiptsLine.userId(root) } catch { throw LineFailure(userId: nil, error: error) }
        if let shard, !shard.contains(userId) { return .otherShard }
        do {
            let grants = try ReceiptsLine.grants(root)
            switch try ReceiptsLine.content(root) {
            case .receipt(let receipt):
                var history = try decoder.decode(receipt, path: ReceiptsLine.receiptPath).history
                if !grants.isEmpty { history.merge(grants: grants) }
                return .user(userId: userId, history: history, signed: false)
            case .signed(let transactions, let renewals):
                guard let signedData else { return .signedWithoutApp }
                var history = try signedData.history(signedTransactions: transactions, signedRenewalInfos: renewals, path: "$")
                if !grants.isEmpty { history.merge(grants: grants) }
                return .user(userId: userId, history: history, signed: true)
            case .none:
                return .user(userId: userId, history: PurchaseHistory(grants: grants), signed: false)
            }
        } catch {
            throw LineFailure(userId: userId, error: error)
        }
    }

    /// Decides one user's history at every instant and writes their lines.
    mutating func decide(userId: String, history: PurchaseHistory) -> Outcome {
        let user = ExactKey(userId)
        let granted = grants?.byUser[user] ?? []
        // One evaluation per instant; the publications (those the user's transactions grant,
        // and those granted without any) are the same at every instant.
        var perInstant = instants.map { engine.evaluate(history, at: $0, environment: environment) }
        if grants != nil, !granted.isEmpty {
            seenGrantUsers.insert(user)
            for publicationId in Set(granted.map { ExactKey($0.publication) }).sorted()
            where !perInstant[0].publications.contains(where: { $0.publication.id.sameBytes(as: publicationId.text) }) {
                guard let publication = engine.catalog.publication(publicationId.text) else { continue }
                for index in instants.indices {
                    perInstant[index].publications.append(engine.evaluate(history, publication: publication, at: instants[index], environment: environment))
                }
            }
        }
        for (index, entitlements) in perInstant.enumerated() { summary.record(entitlements, instant: index, grants: history.grants) }
        output.removeAll(keepingCapacity: true)
        findings.removeAll(keepingCapacity: true)
        for (position, first) in perInstant[0].publications.enumerated() {
            let judged =
                grants == nil
                ? [] : judge(granted.filter { $0.publication.sameBytes(as: first.publication.id) }, publication: first.publication, history: history)
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
}

extension Auditor {
    /// What one line gave, when it could be read.
    private enum LineRead {
        /// A user of this shard and their history; `signed` when it came from signed data.
        case user(userId: String, history: PurchaseHistory, signed: Bool)
        /// A user of another shard.
        case otherShard
        /// Signed data, with no app configured to check it against.
        case signedWithoutApp
    }

    /// Why a receipts line cannot be used, with its user when the line names one (the user decides
    /// the line's shard).
    private struct LineFailure: Error {
        var userId: String?
        var error: FormatError
    }
}
