import Masthead
import MastheadFormats
import MastheadStorage

/// `masthead grants import FILE`: the publisher's grants (print subscribers, comps, gifts,
/// make-good issues) stored in the service's database, as a print fulfilment house exports them.
struct GrantsCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "grants", summary: "Import the publisher's grants (print subscribers, comps, gifts) into the service's database.",
        description: """
            Stores each grant of FILE (- reads standard input) for its user in the service's
            database (R17), as PUT /v1/users/{userId}/grants/{grantId} does: a line replaces the
            grant of the same grantId entirely (revokedAt included); a grant id is global to the
            database, so a line giving another user's grant id is refused. Running the same file
            again changes nothing. The change is logged for a running service to see.

            FILE is CSV or JSON lines, told apart by its first byte that is not blank: { means JSON
            lines, anything else CSV. CSV starts with a header naming the columns
            grantId,userId,publications,access,start,end,source (in any order; optional window and
            revokedAt); publications are separated by ; inside their field, fields may be quoted as
            RFC 4180 says, an empty end is open-ended. A JSON line is a grant object as the service
            reads it (a span, or an issue grant: publication and issues) with its userId. Instants
            are RFC 3339 or a date alone (midnight UTC; as end, the whole day is included). Every
            publication must be in the catalog.

            A line that cannot be used (a field wrong, a publication not in the catalog, another
            user's grant id) is reported on standard error as FILE:LINE: field: reason and stores
            nothing; the other lines are stored, 10000 to a transaction, and the exit status is 1.
            A header that cannot be used stops the import before anything is stored. Standard
            output gets how many grants were added, changed, left unchanged and revoked, and how
            many lines were rejected; a progress line is shown when standard error is a terminal.
            """,
        operands: ["import", "FILE"],
        options: [
            CommonOptions.catalogOption,
            .value(
                "database", "FILE.sqlite|URL", "The service's SQLite database (created if needed) or postgresql:// URL; a running service may use it.",
                required: true),
            .flag("dry-run", "Report what would be added, changed, left unchanged and revoked; write nothing."),
            .value(
                "revoke-missing", "SOURCE",
                """
                Also revoke, as of now, every grant of SOURCE not revoked yet whose grant id is not in
                FILE (the print list that dropped lapsed subscribers). Refused when FILE had a bad line
                or holds no grant.
                """),
        ],
        epilogue: """
            --revoke-missing holds the grant ids of FILE in memory, and revokes nothing when any line
            was rejected or FILE holds no grant (exit 1): a file read in part, or an empty export,
            never revokes everyone. Fix the file and run the import again.
            """)

    /// How many lines go to the store in one transaction.
    static let batchLines = 10_000

    let filePath: String
    let catalogPath: String
    let database: StoreLocation
    let dryRun: Bool
    let revokeMissing: String?
    let now: Instant

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        guard parsed.operands[0] == "import" else {
            throw CLIError.usage("grants: unknown action '\(parsed.operands[0])': the action is 'import' \(Self.spec.seeHelp)")
        }
        filePath = parsed.operands[1]
        catalogPath = parsed.required("catalog")
        database = StoreLocation(parsed.required("database"))
        dryRun = parsed.flag("dry-run")
        revokeMissing = parsed.value("revoke-missing")
        if let revokeMissing, revokeMissing.isEmpty { throw CLIError.usage("grants: --revoke-missing needs a source") }
        self.now = now
    }

    /// What the import did, counted.
    struct Tally {
        var writes: [GrantWrite: Int] = [:]
        var revoked = 0
        var rejected = 0
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalogDocument(catalogPath).catalog
        let reader = try GrantsFileReader(path: filePath)
        let store: any EntitlementStore
        do { store = try database.open() } catch { throw CLIError.cannotWrite(path: "\(database)", reason: "\(error)") }
        defer { try? store.checkpoint() }
        let origin = Int64.random(in: 1...Int64.max)
        var tally = Tally()
        var kept: Set<ExactKey> = []
        var progress = errors.isTerminal ? GrantsProgress() : nil
        var header: GrantsFileDecoder.CSVHeader?
        var batch: [(line: Int, entry: UserGrant)] = []
        func report(_ line: Int, _ reason: String) throws(CLIError) {
            tally.rejected += 1
            try progress?.erase(on: errors)
            try errors.write("\(reader.path):\(line): \(reason)\n")
        }
        func flush() throws(CLIError) {
            guard !batch.isEmpty else { return }
            let outcomes = try apply(batch.map(\.entry), to: store, origin: origin)
            for ((line, _), outcome) in zip(batch, outcomes) {
                switch outcome {
                case .success(let write): tally.writes[write, default: 0] += 1
                case .failure(let error): try report(line, "grantId: \(error)")
                }
            }
            batch.removeAll(keepingCapacity: true)
            try progress?.update(lines: reader.linesRead, bytes: reader.bytesRead, total: reader.size, on: errors)
        }
        while let record = try reader.next() {
            guard let bytes = record.bytes else {
                try report(record.line, "line: longer than \(GrantsFileReader.maxRecordBytes) bytes")
                continue
            }
            if reader.format == .csv && header == nil {
                do { header = try GrantsFileDecoder.csvHeader(bytes) } catch {
                    throw CLIError.invalidData("\(reader.path):\(record.line): \(error); nothing was stored")
                }
                continue
            }
            let read: (userId: String, grant: Grant)
            do {
                read = try header.map { (header) throws(GrantsFileDecoder.Problem) in try GrantsFileDecoder.grant(csv: bytes, header: header) }
                    ?? GrantsFileDecoder.grant(jsonLine: bytes)
                try Self.checkPublications(read.grant, in: catalog, format: reader.format)
            } catch {
                try report(record.line, "\(error)")
                continue
            }
            if revokeMissing != nil { kept.insert(ExactKey(read.grant.grantId)) }
            batch.append((record.line, UserGrant(userId: read.userId, grant: read.grant)))
            if batch.count == Self.batchLines { try flush() }
        }
        try flush()
        try progress?.erase(on: errors)
        // A file read in part, or an empty export, must not revoke every grant of the source.
        var refused = false
        if let source = revokeMissing {
            if tally.rejected > 0 {
                try errors.write("\(reader.path): --revoke-missing \(source) not applied: \(tally.rejected) line(s) rejected; nothing was revoked\n")
            } else if kept.isEmpty {
                refused = true
                try errors.write("\(reader.path): --revoke-missing \(source) not applied: the file holds no grant; nothing was revoked\n")
            } else {
                tally.revoked = try revoke(source: source, keeping: kept, in: store, origin: origin)
            }
        }
        let counts = GrantWrite.allCases.map { "\(tally.writes[$0, default: 0]) \($0.rawValue)" } + ["\(tally.revoked) revoked", "\(tally.rejected) rejected"]
        let what = dryRun ? " (dry run, nothing written)" : " in \(database)"
        try output.write("grants import: \(counts.joined(separator: ", "))\(what)\n")
        return tally.rejected > 0 || refused ? 1 : 0
    }

    /// Every publication the grant names is in the catalog (the same bytes).
    static func checkPublications(_ grant: Grant, in catalog: Catalog, format: GrantsFileDecoder.Format) throws(GrantsFileDecoder.Problem) {
        let known = catalog.publications.map(\.id)
        for (index, id) in grant.publications.enumerated() where catalog.publication(id) == nil {
            let field: String
            switch (grant.scope, format) {
            case (.issues, _): field = "$.publication"
            case (.span, .jsonLines): field = "$.publications[\(index)]"
            case (.span, .csv): field = "publications[\(index)]"
            }
            throw GrantsFileDecoder.Problem(field: field, message: "unknown publication \"\(id)\"\(Spelling.suggestion(for: id, among: known))")
        }
    }

    /// Stores a batch in one transaction, or in a dry run applies it in a savepoint rolled back.
    private func apply(_ entries: [UserGrant], to store: any EntitlementStore, origin: Int64) throws(CLIError) -> [Result<GrantWrite, StorageError>] {
        try writing(store) { () throws(StorageError) in
            let outcomes = try store.applyGrants(entries, now: now, origin: origin)
            try store.pruneChangeLog()
            return outcomes
        }
    }

    /// Revokes the grants of `source` not kept, as ``apply(_:to:origin:)`` writes; answers how many.
    private func revoke(source: String, keeping kept: Set<ExactKey>, in store: any EntitlementStore, origin: Int64) throws(CLIError) -> Int {
        try writing(store) { () throws(StorageError) in try store.revokeGrants(source: source, keeping: kept, now: now, origin: origin).count }
    }

    /// Runs `body` in a write transaction that commits, or in a dry run rolls back what it wrote.
    private func writing<R: Sendable>(_ store: any EntitlementStore, _ body: () throws(StorageError) -> R) throws(CLIError) -> R {
        do {
            return try store.inTransaction { () throws(StorageError) -> R in
                guard dryRun else { return try body() }
                let undone = try store.inSavepoint { () throws(DryRun<R>) -> Never in
                    let result: R
                    do throws(StorageError) { result = try body() } catch { throw .failed(error) }
                    throw .undo(result)
                }
                switch undone {
                case .success(let never): switch never {}
                case .failure(.undo(let result)): return result
                case .failure(.failed(let error)): throw error
                }
            }
        } catch {
            throw CLIError.cannotWrite(path: "\(database)", reason: "\(error)")
        }
    }

    /// How a dry run's savepoint ends: always rolled back, with what the writes answered or why they failed.
    private enum DryRun<R: Sendable>: Error {
        case undo(R)
        case failed(StorageError)
    }
}
