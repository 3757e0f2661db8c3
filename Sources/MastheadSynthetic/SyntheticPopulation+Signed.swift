public import MastheadCrypto
import Masthead
import MastheadFormats
import MastheadJSON

extension SyntheticPopulation {
    /// One user's signed data before it is signed: the payloads of `masthead generate --signed`.
    public struct SignedUser: Sendable {
        public var userId: String
        /// The JSON payload of each transaction (JWSTransactionDecodedPayload), latest first.
        public var transactions: [[UInt8]]
        /// The JSON payload of each subscription's renewal info (JWSRenewalInfoDecodedPayload).
        public var renewals: [[UInt8]]

        /// The audit input line (without the newline),
        /// `{"user_id": …, "signedTransactions": ["…"], "signedRenewalInfos": ["…"]}`, every
        /// payload signed by `signer`.
        public func line(signer: JWSSigner) throws(SignatureError) -> [UInt8] {
            var writer = JSONWriter(capacity: (transactions.count + renewals.count) * 4096)
            writer.beginObject()
            writer.field("user_id", userId)
            writer.key("signedTransactions")
            writer.beginArray()
            for payload in transactions { writer.string(try signer.sign(payload)) }
            writer.endArray()
            writer.key("signedRenewalInfos")
            writer.beginArray()
            for payload in renewals { writer.string(try signer.sign(payload)) }
            writer.endArray()
            writer.endObject()
            return writer.bytes
        }
    }

    /// User number `index` as signed data for the app `bundleId`: the same user ``line(user:random:)``
    /// writes as a receipt (the same draws from `random`), each transaction once and each
    /// subscription's renewal info, as Apple's signed payloads.
    ///
    /// A transaction is signed as of the user's latest purchase or refund; a renewal info as of
    /// its subscription's latest purchase, the instant a receipt's `pending_renewal_info` is
    /// dated by (R2.7), so that both audit alike (unless ``endingRevocations`` is set). Refunds
    /// carry `revocationDate`, `revocationType` and `revocationPercentage`, upgrades
    /// `isUpgraded`, free trials `offerType` 1 with `offerDiscountType` `FREE_TRIAL`, and every
    /// `type` is how the catalog's product is sold.
    public func signedUser(user index: Int, bundleId: String, random: inout SeededGenerator) -> SignedUser {
        let drawn = draw(user: index, random: &random)
        let environment = drawn.sandbox ? "Sandbox" : "Production"
        let signedDate = drawn.entries.map { max($0.purchase, $0.cancellation ?? $0.purchase) }.max() ?? start.milliseconds
        var transactions: [[UInt8]] = []
        transactions.reserveCapacity(drawn.entries.count)
        for entry in drawn.entries.reversed() {
            transactions.append(transactionPayload(entry, drawn.entries, bundleId: bundleId, environment: environment, signedDate: signedDate))
        }
        let renewals = drawn.pending.map { pending in
            let latest = drawn.entries.filter { $0.original == pending.original }.map(\.purchase).max() ?? signedDate
            return renewalPayload(pending, environment: environment, signedDate: latest)
        }
        return SignedUser(userId: "user-\(index)", transactions: transactions, renewals: renewals)
    }

    private func transactionPayload(_ entry: Entry, _ entries: [Entry], bundleId: String, environment: String, signedDate: Int64) -> [UInt8] {
        let type = catalog.product(entry.product).map { AppStoreProductType.sold(as: $0.type) }
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.field("transactionId", entry.id)
        writer.field("originalTransactionId", entry.original)
        if type == .autoRenewableSubscription { writer.field("webOrderLineItemId", "\(entry.id)7") }
        writer.field("bundleId", bundleId)
        writer.field("productId", entry.product)
        writer.field("purchaseDate", entry.purchase)
        writer.field("originalPurchaseDate", entries.first { $0.id == entry.original }?.purchase ?? entry.purchase)
        if let expires = entry.expires { writer.field("expiresDate", expires) }
        writer.field("quantity", Int64(1))
        if let type { writer.field("type", type.rawValue) }
        writer.field("inAppOwnershipType", "PURCHASED")
        writer.field("signedDate", signedDate)
        if let cancellation = entry.cancellation {
            writer.field("revocationReason", Int64(0))
            writer.field("revocationDate", cancellation)
            if !entry.upgraded { writeRevocationType(entry, cancellation: cancellation, into: &writer) }
        }
        if entry.upgraded { writer.field("isUpgraded", true) }
        if entry.trial {
            writer.field("offerType", Int64(1))
            writer.field("offerDiscountType", "FREE_TRIAL")
            writer.field("offerPeriod", "P1M")
        }
        writer.field("environment", environment)
        writer.field("transactionReason", entry.id == entry.original ? "PURCHASE" : "RENEWAL")
        writer.field("storefront", "USA")
        writer.field("storefrontId", "143441")
        writer.endObject()
        return writer.bytes
    }

    /// A refund's `revocationType` and `revocationPercentage` (R5.3): a full refund is 100% of the
    /// transaction; a prorated one the share of its time left at the revocation; a Family Sharing
    /// revocation gives no share.
    private func writeRevocationType(_ entry: Entry, cancellation: Int64, into writer: inout JSONWriter) {
        let type = entry.revocation ?? .refundFull
        writer.field("revocationType", type.rawValue)
        if type == .familyRevoke { return }
        let end = entry.expires ?? catalog.product(entry.product)?.duration.map { $0.added(to: Instant(milliseconds: entry.purchase)).milliseconds }
        guard type == .refundProrated, let end, end > entry.purchase else {
            writer.field("revocationPercentage", Int64(100_000))
            return
        }
        let left = min(max(0, end - cancellation), end - entry.purchase)
        writer.field("revocationPercentage", left * 100_000 / (end - entry.purchase))
    }

    private func renewalPayload(_ pending: Pending, environment: String, signedDate: Int64) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.field("originalTransactionId", pending.original)
        writer.field("productId", pending.product)
        writer.field("autoRenewProductId", pending.product)
        writer.field("autoRenewStatus", Int64(pending.autoRenew ? 1 : 0))
        if pending.retry {
            writer.field("isInBillingRetryPeriod", true)
            writer.field("expirationIntent", Int64(2))
        }
        if let grace = pending.grace { writer.field("gracePeriodExpiresDate", grace) }
        writer.field("signedDate", signedDate)
        writer.field("environment", environment)
        writer.endObject()
        return writer.bytes
    }
}
