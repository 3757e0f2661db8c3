import Dispatch
import Masthead
import MastheadAudit
import MastheadCrypto
import MastheadFormats
import MastheadJSON
import MastheadSynthetic
import Synchronization

/// `masthead generate`: a synthetic population as audit input, the same bytes for the same seed;
/// optionally what a content system would have served them, with a few mistakes, for demos of
/// `audit --grants`.
struct GenerateCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "generate", summary: "Write a synthetic population of receipts as audit input (same seed, same bytes).",
        description: """
            Writes N synthetic users as audit input lines, {"user_id": "user-0", "receipt": {...}}, from
            the catalog's products: renewals that overlap slightly, lapses of hours and months, refunds,
            upgrades, trials, billing retry and grace periods, non-renewing passes, single issues,
            sandbox receipts, and the date and flag shapes real receipts use. The same seed gives the
            same bytes. With --grants, also writes what a content system would have served them, as CSV
            user_id,publication,issue_id,granted_at: every issue readable at one of the --grants-at
            instants (dated when it first became readable) but about 2 % left out, and for about 3 % of
            users one issue served in the six months before the last instant at an hour when they could
            not read it (for audit --grants demos).

            With --signed, writes the same users as signed data instead, {"user_id": "user-0",
            "signedTransactions": ["..."], "signedRenewalInfos": ["..."]}: each transaction once and
            each subscription's renewal info as Apple's signed payloads (JWS, ES256), signed by the
            --signing-key with the --signing-chain in each token's x5c. Signatures use RFC 6979 nonces,
            so the same seed and key give the same bytes here too.

            With --ending-revocations, about half the refunds are drawn as prorated refunds (signed data's
            revocationType REFUND_PRORATED, revocationPercentage the share of time left) or Family Sharing
            revocations (FAMILY_REVOKE), which end a purchase at the revocation rather than refund it
            (R5.3). Receipts cannot say so and show them as refunds: the same seed and flags give the same
            users as receipts and as signed data, decided apart; with --signed, --grants describes what
            the signed data gives.
            """,
        options: [
            CommonOptions.catalogOption,
            .value("users", "N", "How many users.", required: true),
            .value("seed", "S", "The random seed (default 1)."),
            .value("output", "FILE", "Write here (atomically; a regular file) instead of standard output."),
            .value("grants", "FILE", "Also write grants for the users here."),
            grantsAtOption.repeatable(),
            .flag("signed", "Write signed transactions and renewal infos instead of receipts."),
            .value("signing-key", "FILE", "With --signed: PEM file of the P-256 private key that signs (PKCS#8 or SEC1)."),
            .value(
                "signing-chain", "FILE",
                """
                With --signed: PEM file of the certificates each token carries
                (x5c): leaf (the key's), intermediate, root.
                """),
            .value("bundle-id", "ID", "With --signed: the app's bundle id (default com.example.magazine)."),
            .flag("ending-revocations", "Draw prorated refunds and Family Sharing revocations too (R5.3; receipts show them as refunds)."),
        ])
    /// `--grants-at INSTANT`, repeatable.
    static let grantsAtOption = InstantOption(
        name: "grants-at",
        help: """
            An instant the grants describe, RFC 3339 (default: now); repeat it
            for the instants of an audit series.
            """)
    /// Stopped by SIGINT or SIGTERM, it leaves no temporary output file behind.
    static let removesTemporaryFilesOnStopSignals = true

    let catalogPath: String
    let users: Int
    let seed: UInt64
    let outputPath: String?
    let grantsPath: String?
    /// The instants the generated grants describe (what was served by each).
    let grantsAt: [Instant]
    /// With `--signed`: the key and certificate chain files that sign, and the app's bundle id.
    let signing: (keyPath: String, chainPath: String, bundleId: String)?
    /// With `--ending-revocations`: some refunds are prorated refunds or Family Sharing revocations (R5.3).
    let endingRevocations: Bool

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        catalogPath = parsed.required("catalog")
        users = try parsed.integer("users", in: 0...Int.max) ?? 0  // required: always given
        seed = try parsed.unsigned("seed") ?? 1
        outputPath = parsed.value("output")
        grantsPath = parsed.value("grants")
        let grantsAt = try Self.grantsAtOption.instants(in: parsed, command: Self.spec.name)
        self.grantsAt = grantsAt.isEmpty ? [now] : grantsAt.sorted()
        if parsed.flag("signed") {
            guard let key = parsed.value("signing-key"), let chain = parsed.value("signing-chain") else {
                throw CLIError.usage("generate: --signed needs --signing-key FILE and --signing-chain FILE")
            }
            signing = (key, chain, parsed.value("bundle-id") ?? "com.example.magazine")
        } else {
            for name in ["signing-key", "signing-chain", "bundle-id"] where parsed.value(name) != nil {
                throw CLIError.usage("generate: --\(name) is for --signed data")
            }
            signing = nil
        }
        endingRevocations = parsed.flag("ending-revocations")
    }

    /// Users drawn in order, then signed on every core at once, then written in order.
    static let signingBatch = 512

    /// Of the issues a user may read, the share (in percent) the generated grants leave out.
    static let missedPercent = 2
    /// The share (in percent) of users served one issue they may not read.
    static let extraPercent = 3

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalog(catalogPath)
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        let grants = try grantsPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        try grants?.write("user_id,publication,issue_id,granted_at\n")
        var population = SyntheticPopulation(catalog: catalog)
        population.endingRevocations = endingRevocations
        var random = SeededGenerator(seed: seed)
        // The grants draw from their own generator, so the receipts are the same with or without them.
        var mistakes = SeededGenerator(seed: seed ^ 0x6772_616E_7473)
        let decoder = ReceiptDecoder(catalog: catalog)
        let signedDecoder = SignedDataDecoder(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        let signer = try signing.map { (signing) throws(CLIError) in try Self.signer(signing) }
        var user = 0
        while user < users {
            let batch = user..<min(users, user + (signer == nil ? 1 : Self.signingBatch))
            var receiptLines: [[UInt8]] = []
            var signedUsers: [SyntheticPopulation.SignedUser] = []
            for index in batch {
                if let signing {
                    // The same draws as the receipt's, which the grants are made from.
                    var copy = random
                    if grants != nil { receiptLines.append(population.line(user: index, random: &copy)) }
                    signedUsers.append(population.signedUser(user: index, bundleId: signing.bundleId, random: &random))
                } else {
                    receiptLines.append(population.line(user: index, random: &random))
                }
            }
            if let signer {
                for line in try Self.sign(signedUsers, with: signer) { try destination.write(line + [0x0A]) }
            } else {
                for line in receiptLines { try destination.write(line + [0x0A]) }
            }
            if let grants {
                for (offset, index) in batch.enumerated() {
                    // Only signed data says how a refund was revoked (R5.3); receipts show a refund.
                    let history =
                        endingRevocations && signing != nil
                        ? Self.history(of: signedUsers[offset], decoder: signedDecoder) : Self.history(ofReceiptLine: receiptLines[offset], decoder: decoder)
                    guard let history else { continue }
                    try grants.write(Self.grants(user: "user-\(index)", history: history, engine: engine, instants: grantsAt, random: &mistakes))
                }
            }
            user = batch.upperBound
        }
        try destination.finish()
        try grants?.finish()
        return 0
    }

    /// The deterministic signer of `--signing-key` and `--signing-chain`.
    static func signer(_ signing: (keyPath: String, chainPath: String, bundleId: String)) throws(CLIError) -> JWSSigner {
        let keyText = String(decoding: try Files.read(signing.keyPath), as: UTF8.self)
        let chainBytes = try Files.read(signing.chainPath)
        let key: SigningKey
        do { key = try SigningKey(pem: keyText) } catch { throw CLIError.invalidData("generate: --signing-key \(signing.keyPath): \(error)") }
        let chain: [Certificate]
        do { chain = try Certificate.certificates(derOrPEM: chainBytes) } catch {
            throw CLIError.invalidData("generate: --signing-chain \(signing.chainPath): \(error)")
        }
        guard chain.count == 3 else {
            throw CLIError.invalidData(
                "generate: --signing-chain \(signing.chainPath) holds \(chain.count) certificate(s); signed data carries 3 (leaf, intermediate, root)")
        }
        do { return try JWSSigner(key: key, certificateChain: chain, deterministic: true) } catch {
            throw CLIError.invalidData("generate: --signing-key \(signing.keyPath) and --signing-chain \(signing.chainPath): \(error)")
        }
    }

    /// The lines of `users`, signed on every core, in order.
    static func sign(_ users: [SyntheticPopulation.SignedUser], with signer: JWSSigner) throws(CLIError) -> [[UInt8]] {
        let lines = Mutex([[UInt8]](repeating: [], count: users.count))
        let failure = Mutex<SignatureError?>(nil)
        DispatchQueue.concurrentPerform(iterations: users.count) { index in
            do throws(SignatureError) {
                let line = try users[index].line(signer: signer)
                lines.withLock { $0[index] = line }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw CLIError.invalidData("generate: signing failed: \(error)") }
        return lines.withLock { $0 }
    }

    /// What a content system served one user by the last of `instants`: every issue readable at
    /// any of them (dated when it first became readable), less a few, plus now and then one issue
    /// served at an instant when the user could not read it (a revenue leak, judged as the audit
    /// judges it: at the instant it was served).
    static func grants(user: String, history: PurchaseHistory, engine: EntitlementEngine, instants: [Instant], random: inout SeededGenerator) -> String {
        guard let last = instants.last else { return "" }
        // Per publication, in catalog order: each issue readable at some instant, and since when.
        var served: [(publication: Publication, issues: [(issue: Issue, since: Instant)])] = []
        for at in instants {
            for entitlement in engine.evaluate(history, at: at).publications {
                let publication = entitlement.publication
                if !served.contains(where: { $0.publication.id.sameBytes(as: publication.id) }) { served.append((publication, [])) }
                let slot = served.firstIndex { $0.publication.id.sameBytes(as: publication.id) }!
                for entry in entitlement.readable where entry.reasons != [.free] {
                    let since = readableSince(entry, entitlement, history)
                    if let known = served[slot].issues.firstIndex(where: { $0.issue.id.sameBytes(as: entry.issue.id) }) {
                        served[slot].issues[known].since = min(served[slot].issues[known].since, since)
                    } else {
                        served[slot].issues.append((entry.issue, since))
                    }
                }
            }
        }
        var rows = ""
        for (publication, issues) in served {
            for (issue, since) in issues.sorted(by: { ($0.issue.published, $0.issue.id) < ($1.issue.published, $1.issue.id) })
            where !random.chance(missedPercent) {
                rows += CSV.row([user, publication.id, issue.id, since.description])
            }
            if random.chance(extraPercent) {
                // Served some hour in the six months before the last instant, an issue published
                // by then that the user could not read then.
                let servedAt = last.adding(milliseconds: -Int64(random.below(180 * 24)) * 3_600_000)
                let denied = engine.evaluate(history, publication: publication, at: servedAt).decisions
                    .filter { !$0.access.isReadable && $0.issue.published <= servedAt }.map(\.issue)
                if !denied.isEmpty {
                    rows += CSV.row([user, publication.id, denied[random.below(denied.count)].id, servedAt.description])
                }
            }
        }
        return rows
    }

    /// The history of a generated receipt line; nil when it has none to decide.
    static func history(ofReceiptLine line: [UInt8], decoder: ReceiptDecoder) -> PurchaseHistory? {
        do {
            let root = try JSONDocument(parsing: line).root
            guard let receipt = root.member("receipt") else { return nil }
            return try decoder.decode(receipt, path: "$.receipt").history
        } catch {
            return nil
        }
    }

    /// The history of a generated user's signed payloads (before they are signed); nil when one cannot be read.
    static func history(of user: SyntheticPopulation.SignedUser, decoder: SignedDataDecoder) -> PurchaseHistory? {
        do {
            var transactions: [Transaction] = []
            for payload in user.transactions { transactions += try decoder.transaction(payload).transactions }
            var renewals: [RenewalInfo] = []
            for payload in user.renewals { renewals.append(try decoder.renewal(payload).renewal) }
            return PurchaseHistory(transactions: transactions, renewals: renewals)
        } catch {
            return nil
        }
    }

    /// When an issue first became readable, by the earliest of its reasons: its publication, the
    /// start of the period that unlocked it, the first streaming period after its publication, the
    /// purchase of the issue itself, or the start of the grant that gives it.
    static func readableSince(_ entry: ReadableIssue, _ entitlement: PublicationEntitlement, _ history: PurchaseHistory) -> Instant {
        let published = entry.issue.published
        return entry.reasons.map { reason -> Instant in
            switch reason {
            case .publishedDuringPeriod, .free: return published
            case .unlockedAtPeriodStart(let period): return entitlement.periods[period].start
            case .streaming:
                let first = entitlement.periods.first { $0.access == .streaming && $0.end > published }
                return max(published, first?.start ?? published)
            case .singlePurchase(let transactionId):
                return max(published, history.transactions.first { $0.transactionId.sameBytes(as: transactionId) }?.purchase ?? published)
            case .granted(let grantId, _):
                return max(published, history.grants.first { $0.grantId.sameBytes(as: grantId) }?.start ?? published)
            }
        }.min() ?? published
    }
}
