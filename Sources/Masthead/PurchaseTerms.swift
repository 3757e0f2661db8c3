/// The offer and billing terms a signed transaction was bought under, as Apple signed them: kept
/// with the transaction and shown, they decide nothing the rules compute (a win-back offer's
/// resubscription is a resubscription like any other, R8, R11.2).
///
/// Each field is optional, as in Apple's `JWSTransactionDecodedPayload`; receipts carry none.
/// Terms compare, hash and order by the exact bytes of their texts.
public struct PurchaseTerms: Hashable, Comparable, Sendable, OfferTerms, ExactBytesRepresentable {
    /// The offer the transaction was bought under (``offerType``, ``offerIdentifier`` and ``offerPeriod``).
    public var offer: TermsOffer
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
        offer = TermsOffer(type: offerType, identifier: offerIdentifier, period: offerPeriod)
        self.appTransactionId = appTransactionId
        self.billingPlanType = billingPlanType
        self.commitment = commitment
    }

    /// Whether no field is given (then a transaction carries no terms at all).
    public var isEmpty: Bool { offer.isEmpty && appTransactionId == nil && billingPlanType == nil && commitment == nil }

    /// The fields in order, so that the merge of copies signed at one instant (R2.8) depends on
    /// no arrival order.
    public var exactBytes: [UInt8] { TermsBytes.of(offer, appTransactionId, billingPlanType, commitment) }
}

/// Where a transaction lies in a subscription with a commitment (Apple's `commitmentInfo`).
public struct PurchaseCommitment: Hashable, Sendable, ExactBytesRepresentable {
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

    public var exactBytes: [UInt8] { TermsBytes.of(billingPeriodNumber, totalBillingPeriods, expires, price) }
}

extension PurchaseCommitment: TermsFieldValue {}
