/// The offer of terms, as Apple signed it: the one a transaction was bought under
/// (``PurchaseTerms``) or the one a subscription's next renewal uses (``RenewalTerms``). Each
/// field is optional; texts compare by their exact bytes.
public struct TermsOffer: Hashable, Sendable, ExactBytesRepresentable {
    /// Apple's `offerType` as sent (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var type: Int32?
    /// The offer's identifier (`offerIdentifier`): a promotional offer's or win-back offer's id,
    /// or an offer code's reference name.
    public var identifier: String?
    /// How long the offer lasts (`offerPeriod`), ISO 8601 text as sent (`P1M`).
    public var period: String?

    /// Creates an offer; every field is optional.
    public init(type: Int32? = nil, identifier: String? = nil, period: String? = nil) {
        self.type = type
        self.identifier = identifier
        self.period = period
    }

    /// Whether no field is given.
    public var isEmpty: Bool { type == nil && identifier == nil && period == nil }

    public var exactBytes: [UInt8] { TermsBytes.of(self) }
}

/// Terms that carry an offer (``TermsOffer``), whose fields read under Apple's names.
public protocol OfferTerms {
    /// The offer.
    var offer: TermsOffer { get set }
}

extension OfferTerms {
    /// Apple's `offerType` as sent (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int32? { get { offer.type } set { offer.type = newValue } }

    /// The offer's identifier (`offerIdentifier`).
    public var offerIdentifier: String? { get { offer.identifier } set { offer.identifier = newValue } }

    /// How long the offer lasts (`offerPeriod`), ISO 8601 text as sent (`P1M`).
    public var offerPeriod: String? { get { offer.period } set { offer.period = newValue } }
}
