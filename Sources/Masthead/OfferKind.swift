/// The kind of offer a signed transaction was bought under, other than an introductory offer
/// (``Transaction/isIntroductoryOffer``); it labels the transaction's interval (``IntervalKind/offer``).
public enum OfferKind: String, Hashable, Sendable, CaseIterable, Comparable {
    /// A promotional offer the app presented (Apple's `offerType` 2).
    case promotional
    /// An offer code the customer redeemed (`offerType` 3).
    case offerCode
    /// A win-back offer for a customer who had left (`offerType` 4).
    case winBack
    /// An offer type Apple added after these four.
    case other

    public static func < (lhs: OfferKind, rhs: OfferKind) -> Bool { lhs.rawValue < rhs.rawValue }
}
