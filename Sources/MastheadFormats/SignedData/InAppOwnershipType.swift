/// How the customer holds a purchase (Apple's `inAppOwnershipType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct InAppOwnershipType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `inAppOwnershipType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer bought it.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")
    /// A family member bought it and shares it through Family Sharing.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
}
