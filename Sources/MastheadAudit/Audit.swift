import Masthead
import MastheadFormats

/// One audit: every user of a receipts file or of the service's database decided at each as-of
/// instant, one output line per (user, publication), with the grants reconciled when given.
///
/// ``init(_:)`` reads what must be whole before anything is decided (the grants, the database's
/// published issues); ``run(into:)`` reads the users in batches, decides each batch on every
/// worker while the previous batch is written and the next one read, and hands the results to
/// the sink in input order. Memory stays bounded whatever the input's size (a few batches of
/// at most 4,096 records); the grants are held whole.
public struct Audit {
    /// The configuration, its catalog with the database's published issues.
    public let configuration: AuditConfiguration
    private let grants: Grants?
    private let input: Input

    /// Where the users are read from.
    private enum Input {
        case receipts(path: String)
        case database(AuditDatabase)
    }

    /// Loads the grants and opens the database (its published issues join the catalog); a
    /// receipts file is opened by ``run(into:)``.
    /// - Throws: ``AuditError/invalidGrants(path:line:reason:)`` for a grants line that cannot be
    ///   read, ``AuditError/cannotRead(path:reason:)`` for a file or database that cannot.
    public init(_ configuration: AuditConfiguration) throws(AuditError) {
        var configuration = configuration
        let shard = configuration.shard
        grants = try configuration.grantsPath.map { (path) throws(AuditError) in try Grants.load(path, shard: shard) }
        switch configuration.source {
        case .receipts(let path):
            input = .receipts(path: path)
        case .database(let path):
            let database = try AuditDatabase(path: path)
            configuration.catalog = try database.catalogWithPublishedIssues(configuration.catalog)
            input = .database(database)
        }
        self.configuration = configuration
    }

    /// Decides every user and hands the output, the rejected records and the progress to `sink`.
    /// - Returns: the summary, and the messages about grants the audit could not place.
    /// - Throws: ``AuditError/cannotRead(path:reason:)`` when the input cannot be read,
    ///   ``AuditError/signedDataWithoutApp(location:)`` at the first line of signed data when no
    ///   app is configured, and ``AuditError/sink(_:)`` with what the sink threw.
    public func run(into sink: some AuditSink) throws(AuditError) -> AuditResult {
        let configuration = configuration
        if configuration.format == .csv {
            let header = Auditor.csvHeader(instants: configuration.instants, reconciles: grants != nil)
            try deliver { try sink.write(Array(header.utf8)) }
        }
        var pipeline = AuditPipeline(auditors: (0..<max(1, configuration.workers)).map { _ in
            Auditor(
                catalog: configuration.catalog, instants: configuration.instants, environment: configuration.environment,
                signedData: configuration.signedData, grants: grants,
                format: configuration.format, shard: configuration.shard, collectsFindings: configuration.collectsFindings)
        })
        var listing = FindingListing(capacity: AuditConfiguration.reportedLines)
        var written = 0
        // How much input has been read, and of how much, in the progress unit.
        var position = AuditPosition(unit: .bytes, users: 0, done: 0, total: nil)
        func write(_ batch: [AuditRecord], _ outcomes: [Auditor.Outcome]) throws(AuditError) {
            for (record, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .written(let bytes, let findings):
                    try deliver { try sink.write(bytes) }
                    for finding in findings { listing.add(finding) }
                case .skipped: break
                case .rejected(let reason): try deliver { try sink.reject("\(record.location): \(reason)") }
                case .signedWithoutApp: throw AuditError.signedDataWithoutApp(location: record.location)
                }
            }
            written += batch.count
            position.users = written
            if !batch.isEmpty && sink.showsProgress { try deliver { try sink.progress(position) } }
        }
        var otherShardUsers = 0
        switch input {
        case .receipts(let path):
            let reader = try LineReader(path: path, chunkSize: AuditPipeline.readSize)
            position.total = reader.size
            func read() throws(AuditError) -> [AuditRecord] {
                let batch = try AuditRecord.batch(from: reader, maxLines: AuditPipeline.batchSize, maxBytes: AuditPipeline.batchBytes)
                position.done = reader.bytesConsumed
                return batch
            }
            try pipeline.run(read: read, write: write)
        case .database(let database):
            var cursor = AuditDatabase.Cursor()
            try database.withSnapshot { () throws(AuditError) in
                position.unit = .users
                position.total = sink.showsProgress ? try database.userCount() : nil
                func read() throws(AuditError) -> [AuditRecord] {
                    let batch = try database.nextUsers(
                        after: &cursor, shard: configuration.shard, maxUsers: AuditPipeline.batchSize, maxTransactions: AuditPipeline.batchTransactions)
                    position.done = cursor.usersRead
                    return batch
                }
                try pipeline.run(read: read, write: write)
            }
            otherShardUsers = cursor.otherShardUsers
        }
        var summary = pipeline.auditors.map(\.summary).reduce(AuditSummary(instants: configuration.instants)) { $0.adding($1) }
        summary.reconciled = grants != nil
        if let signedData = configuration.signedData, case .trustedAlready = signedData.trust { summary.signaturesVerified = false }
        summary.shard = configuration.shard
        summary.otherShardLines += otherShardUsers
        let grantMessages = grants.map { placing($0, auditors: pipeline.auditors, summary: &summary) } ?? []
        return AuditResult(configuration: configuration, summary: summary, grantMessages: grantMessages, listing: listing)
    }

    /// The grants the audit could not place, as messages: unknown publications and issues one
    /// line each (`FILE:LINE: …`), grants of users without a receipt line in one line; counted in
    /// `summary`.
    private func placing(_ grants: Grants, auditors: [Auditor], summary: inout AuditSummary) -> [String] {
        var messages: [String] = []
        let problems = auditors.flatMap(\.grantProblems)
        for problem in problems.sorted(by: { $0.line < $1.line }) { messages.append("\(grants.path):\(problem.line): \(problem.message)") }
        let seen = auditors.reduce(into: Set<ExactKey>()) { $0.formUnion($1.seenGrantUsers) }
        var unknownUsers = 0
        var first: (line: Int, user: String)?
        for (user, list) in grants.byUser where !seen.contains(user) {
            unknownUsers += 1
            summary.unknownGrantUsers += list.count
            for grant in list where first.map({ grant.line < $0.line }) ?? true { first = (grant.line, user.text) }
        }
        if let first {
            messages.append(
                "\(grants.path): \(summary.unknownGrantUsers) grant(s) of \(unknownUsers) user(s) without a receipt line\(configuration.shard == nil ? "" : " in this shard"), "
                    + "not reconciled (first: line \(first.line), user \(first.user))")
        }
        summary.otherShardGrants = grants.otherShardGrants
        return messages
    }
}

/// Runs a call to the sink, wrapping what it throws.
private func deliver(_ call: () throws -> Void) throws(AuditError) {
    do { try call() } catch { throw AuditError.sink(error) }
}
