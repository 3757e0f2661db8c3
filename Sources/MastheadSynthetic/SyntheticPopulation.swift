public import Masthead
import MastheadJSON

/// Writes synthetic users as audit input lines, `{"user_id": …, "receipt": {…}}`, from a catalog's
/// products: renewals that overlap slightly, lapses of hours and months, refunds (prorated ones
/// and Family Sharing revocations too with ``endingRevocations``), upgrades,
/// trials, grace periods, non-renewing passes, single issues, sandbox receipts, and the date and
/// flag shapes real payloads use (R2.1, R2.2). The same seed gives the same bytes.
public struct SyntheticPopulation: Sendable {
    public let catalog: Catalog
    /// The first purchase instants are spread over the year after this instant.
    public let start: Instant
    /// Whether some refunds are drawn as prorated refunds or Family Sharing revocations, which end
    /// a transaction at the revocation (R5.3). Signed data says so (`revocationType`); receipts
    /// cannot, so their users are decided apart from the signed ones. Off by default: then the
    /// receipts and the signed data of a seed are decided alike, and every refund is a full one.
    public var endingRevocations = false
    private let autoRenewable: [Product]
    private let nonRenewing: [Product]
    private let issues: [Product]

    /// Creates a generator for a catalog whose histories begin in the year after its first issue
    /// (so they meet its issues), or after 2020-01-01 when it has none: the population
    /// `masthead generate` writes and the benchmarks measure.
    public init(catalog: Catalog) {
        let firstIssue = catalog.publications.compactMap { $0.issues.first?.published }.min()
        self.init(catalog: catalog, start: firstIssue ?? Instant(milliseconds: 1_577_836_800_000))
    }

    /// Creates a generator for a catalog; histories begin in the year after `start`.
    public init(catalog: Catalog, start: Instant) {
        self.catalog = catalog
        self.start = start
        let products = catalog.products.values.sorted { $0.productId.precedesInBytes($1.productId) }
        autoRenewable = products.filter { $0.type == .autoRenewable }
        nonRenewing = products.filter { $0.type == .nonRenewing }
        issues = products.filter { $0.type == .issue }
    }

    /// One input line (without the newline) for user number `index`.
    public func line(user index: Int, random: inout SeededGenerator) -> [UInt8] {
        var writer = JSONWriter(capacity: 8192)
        writer.beginObject()
        writer.field("user_id", "user-\(index)")
        writer.key("receipt")
        receipt(user: index, random: &random, into: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// The verifyReceipt response of user number `index` alone, as a client posts it to the
    /// service (the `receipt` of ``line(user:random:)``).
    public func receipt(user index: Int, random: inout SeededGenerator) -> [UInt8] {
        var writer = JSONWriter(capacity: 8192)
        receipt(user: index, random: &random, into: &writer)
        return writer.bytes
    }

    /// One generated purchase, as a receipt's transaction or a signed transaction gives it.
    struct Entry {
        var id: String
        var original: String
        var product: String
        var purchase: Int64
        var expires: Int64?
        var cancellation: Int64?
        /// How a cancellation that is not an upgrade was revoked, when not a full refund (R5.3).
        var revocation: RevocationType?
        var upgraded = false
        var trial = false
    }

    /// One generated subscription's renewal state, as `pending_renewal_info` or signed renewal info gives it.
    struct Pending {
        var original: String
        var product: String
        var retry: Bool
        var grace: Int64?
        var autoRenew: Bool
    }

    /// Everything drawn for one user, in the order the generator draws it, before any of it is written.
    struct Draw {
        var entries: [Entry] = []
        var pending: [Pending] = []
        var sandbox = false
        /// Which of R2.1's date shapes the receipt uses (receipts only).
        var dateShape = 0
    }

    /// Draws user number `index`: the same draws whether it is then written as a receipt or signed.
    func draw(user: Int, random: inout SeededGenerator) -> Draw {
        let day = Instant.millisecondsPerDay
        var result = Draw()
        var serial = 0
        func nextId() -> String {
            serial += 1
            return "\(user)\(String(repeating: "0", count: max(0, 4 - String(serial).count)))\(serial)"
        }
        // Auto-renewable subscriptions: monthly renewals with occasional lapses and events.
        if !autoRenewable.isEmpty && random.chance(85) {
            let product = autoRenewable[random.below(autoRenewable.count)]
            let original = nextId()
            var purchase = start.milliseconds + Int64(random.below(365)) * day + Int64(random.below(86_400)) * 1000
            let renewals = 3 + random.below(28)
            var current = product.productId
            for renewal in 0..<renewals {
                let length = 30 * day
                var entry = Entry(id: renewal == 0 ? original : nextId(), original: original, product: current, purchase: purchase, expires: purchase + length)
                entry.trial = renewal == 0 && random.chance(15)
                if random.chance(2) {
                    entry.cancellation = purchase + Int64(random.below(20)) * day
                    entry.revocation = endingRevocation(random: &random)
                }
                if renewal > 0 && random.chance(3), let other = autoRenewable.first(where: { $0.productId != current && $0.access == product.access }) {
                    // Upgrade mid-period: this one is cut short, the new product starts at once.
                    let cut = purchase + Int64(1 + random.below(20)) * day
                    entry.cancellation = cut
                    entry.revocation = nil
                    entry.upgraded = true
                    result.entries.append(entry)
                    current = other.productId
                    purchase = cut
                    continue
                }
                result.entries.append(entry)
                // Renewals arrive a little early; sometimes late by hours (billing) or months (resubscribe).
                let roll = random.below(100)
                if roll < 80 {
                    purchase = entry.expires! - Int64(random.below(180)) * 1000
                } else if roll < 92 {
                    purchase = entry.expires! + Int64(1 + random.below(72)) * 3_600_000
                } else {
                    purchase = entry.expires! + Int64(30 + random.below(120)) * day
                }
            }
            let retry = random.chance(8)
            let grace = retry && random.chance(50) ? (result.entries.last?.expires ?? 0) + 16 * day : nil
            result.pending.append(Pending(original: original, product: current, retry: retry, grace: grace, autoRenew: random.chance(70)))
        }
        // Non-renewing passes, stacked by the engine.
        if !nonRenewing.isEmpty && random.chance(15) {
            for _ in 0..<(1 + random.below(3)) {
                let product = nonRenewing[random.below(nonRenewing.count)]
                let id = nextId()
                var entry = Entry(id: id, original: id, product: product.productId, purchase: start.milliseconds + Int64(random.below(700)) * day)
                if random.chance(3) {
                    entry.cancellation = entry.purchase + 2 * day
                    entry.revocation = endingRevocation(random: &random)
                }
                result.entries.append(entry)
            }
        }
        // Single issues.
        if !issues.isEmpty && random.chance(10) {
            let product = issues[random.below(issues.count)]
            let id = nextId()
            result.entries.append(Entry(id: id, original: id, product: product.productId, purchase: start.milliseconds + Int64(random.below(700)) * day))
        }
        result.sandbox = random.chance(3)
        result.dateShape = random.below(4)
        return result
    }

    /// With ``endingRevocations``, half the refunds end their transaction instead (R5.3), half of
    /// those prorated refunds and half Family Sharing revocations; nil (a full refund) otherwise.
    /// Draws nothing when off, so that a seed gives the same users as before.
    private func endingRevocation(random: inout SeededGenerator) -> RevocationType? {
        guard endingRevocations, random.chance(50) else { return nil }
        return random.chance(50) ? .refundProrated : .familyRevoke
    }

    private func receipt(user: Int, random: inout SeededGenerator, into writer: inout JSONWriter) {
        let drawn = draw(user: user, random: &random)
        let entries = drawn.entries, sandbox = drawn.sandbox, dateShape = drawn.dateShape
        writer.beginObject()
        writer.field("status", Int64(0))
        writer.field("environment", sandbox ? "Sandbox" : "Production")
        writer.key("receipt")
        writer.beginObject()
        writer.field("receipt_type", sandbox ? "ProductionSandbox" : "Production")
        writer.field("bundle_id", "com.example.magazine")
        writer.key("in_app")
        writer.beginArray()
        for entry in entries.prefix(1) { write(entry, dateShape: dateShape, random: &random, into: &writer) }
        writer.endArray()
        writer.endObject()
        writer.key("latest_receipt_info")
        writer.beginArray()
        for entry in entries.reversed() { write(entry, dateShape: dateShape, random: &random, into: &writer) }
        writer.endArray()
        writer.key("pending_renewal_info")
        writer.beginArray()
        for renewal in drawn.pending {
            writer.beginObject()
            writer.field("auto_renew_product_id", renewal.product)
            writer.field("original_transaction_id", renewal.original)
            writer.field("product_id", renewal.product)
            writer.field("auto_renew_status", renewal.autoRenew ? "1" : "0")
            if renewal.retry {
                writer.field("is_in_billing_retry_period", "1")
                writer.field("expiration_intent", "2")
            }
            if let grace = renewal.grace {
                writer.field("grace_period_expires_date", CivilTime(Instant(milliseconds: grace)).appleDate)
                writer.field("grace_period_expires_date_ms", String(grace))
            }
            writer.endObject()
        }
        writer.endArray()
        writer.field("latest_receipt", "MIIT0gYJKoZIhvcNAQcCoIITwzCCE78CAQExCzAJBgUrDgMCGgUAMIIDcwYJKoZIhvcNAQcBoIIDZASCA2Ax")
        writer.endObject()
    }

    private func write(_ entry: Entry, dateShape: Int, random: inout SeededGenerator, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("quantity", "1")
        writer.field("product_id", entry.product)
        writer.field("transaction_id", entry.id)
        writer.field("original_transaction_id", entry.original)
        date("purchase_date", entry.purchase, shape: dateShape, into: &writer)
        date("original_purchase_date", entry.purchase, shape: dateShape, into: &writer)
        if let expires = entry.expires { date("expires_date", expires, shape: dateShape, into: &writer) }
        if let cancellation = entry.cancellation {
            date("cancellation_date", cancellation, shape: dateShape, into: &writer)
            writer.field("cancellation_reason", "0")
        }
        writer.field("web_order_line_item_id", "\(entry.id)7")
        flag("is_trial_period", entry.trial, shape: dateShape, into: &writer)
        flag("is_in_intro_offer_period", false, shape: dateShape, into: &writer)
        if entry.upgraded { flag("is_upgraded", true, shape: dateShape, into: &writer) }
        writer.field("in_app_ownership_type", "PURCHASED")
        writer.endObject()
    }

    /// Writes a date in one of the shapes of R2.1: `_ms` as string, `_ms` as number, text only, or all three.
    private func date(_ name: String, _ milliseconds: Int64, shape: Int, into writer: inout JSONWriter) {
        let civil = CivilTime(Instant(milliseconds: milliseconds))
        switch shape {
        case 0:
            writer.field(name, civil.appleDate)
            writer.field(name + "_ms", String(milliseconds))
            writer.field(name + "_pst", civil.appleDate.replacingZone)
        case 1:
            writer.field(name + "_ms", milliseconds)
        case 2:
            writer.field(name, civil.appleDate)
        default:
            writer.field(name, civil.appleDate)
            writer.field(name + "_ms", String(milliseconds))
        }
    }

    /// Writes a flag in one of the shapes of R2.2.
    private func flag(_ name: String, _ value: Bool, shape: Int, into writer: inout JSONWriter) {
        switch shape {
        case 1: writer.field(name, value)
        case 2: writer.field(name, value ? "1" : "0")
        default: writer.field(name, value ? "true" : "false")
        }
    }
}

extension CivilTime {
    /// Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`.
    var appleDate: String {
        let text = rfc3339
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(8)) + " Etc/GMT"
    }
}

extension String {
    /// The Pacific-time twin's zone name (the value is not converted: `_pst` fields are never read).
    fileprivate var replacingZone: String { String(dropLast(7)) + "America/Los_Angeles" }
}
