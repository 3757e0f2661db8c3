/// The offer and billing terms a signed transaction was bought under, as Apple signed them: kept
/// with the transaction and shown, they decide nothing the rules compute (a win-back offer's
/// resubscription is a resubscription like any other, R8, R11.2).
///
/// Each field is optional, as in Apple's `JWSTransactionDecodedPayload`; receipts carry none.
/// Terms compare, hash and order by the exact bytes of their texts.
public struct PurchaseTerms: Hashable, Comparable, Sendable {
    /// Apple's `offerType` as sent (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int32?
    /// The offer's identifier (`offerIdentifier`): a promotional offer's or win-back offer's id,
    /// or an offer code's reference name.
    public var offerIdentifier: String?
    /// How long the offer lasts (`offerPeriod`), ISO 8601 text as sent (`P1M`).
    public var offerPeriod: String?
    /// The app download transaction of the customer (`appTransactionId`).
    public var appTransactionId: String?
    /// How a subscription with a commitment is billed (`billingPlanType`: `BILLED_UPFRONT`,
    /// `MONTHLY`, or a value Apple adds later, as sent).
    public var billingPlanType: String?
    /// Where the transaction lies in a subscription with a commitment (`commitmentInfo`).
    public var commitment: PurchaseCommitment?

    /// Creates terms; every field is optional.
    public init(
        offerType: Int32? = nil, offerIdentifier: String? = nil, offerPeriod: String? = nil, appTransactionId: String? = nil,
        billingPlanType: String? = nil, commitment: PurchaseCommitment? = nil
    ) {
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerPeriod = offerPeriod
        self.appTransactionId = appTransactionId
        self.billingPlanType = billingPlanType
        self.commitment = commitment
    }

    /// Whether no field is given (then a transaction carries no terms at all).
    public var isEmpty: Bool {
        offerType == nil && offerIdentifier == nil && offerPeriod == nil && appTransactionId == nil && billingPlanType == nil && commitment == nil
    }

    public static func == (lhs: PurchaseTerms, rhs: PurchaseTerms) -> Bool { lhs.exactBytes == rhs.exactBytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(exactBytes) }

    /// Orders terms field by field by their exact bytes (absent fields first): a total order, so
    /// that the merge of copies signed at one instant (R2.8) depends on no arrival order.
    public static func < (lhs: PurchaseTerms, rhs: PurchaseTerms) -> Bool { lhs.exactBytes.lexicographicallyPrecedes(rhs.exactBytes) }

    private var exactBytes: [UInt8] {
        var bytes = TermsBytes()
        bytes.add(offerType)
        bytes.add(offerIdentifier)
        bytes.add(offerPeriod)
        bytes.add(appTransactionId)
        bytes.add(billingPlanType)
        bytes.add(commitment == nil ? nil : "")
        bytes.add(commitment?.billingPeriodNumber)
        bytes.add(commitment?.totalBillingPeriods)
        bytes.add(commitment?.expires)
        bytes.add(commitment?.price)
        return bytes.bytes
    }
}

/// Where a transaction lies in a subscription with a commitment (Apple's `commitmentInfo`).
public struct PurchaseCommitment: Hashable, Sendable {
    /// Which billing period of the commitment the transaction pays for, from 1 (`billingPeriodNumber`).
    public var billingPeriodNumber: Int32?
    /// How many billing periods the commitment has (`totalBillingPeriods`).
    public var totalBillingPeriods: Int32?
    /// When the commitment ends (`commitmentExpiresDate`).
    public var expires: Instant?
    /// The commitment's price in milliunits of the transaction's currency (`commitmentPrice`, 9990 is 9.99).
    public var price: Int64?

    /// Creates a commitment; every field is optional.
    public init(billingPeriodNumber: Int32? = nil, totalBillingPeriods: Int32? = nil, expires: Instant? = nil, price: Int64? = nil) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.expires = expires
        self.price = price
    }
}
