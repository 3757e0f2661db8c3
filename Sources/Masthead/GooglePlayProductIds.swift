/// The Google Play ids a catalog product is sold by (R3, R18): a subscription's product id and
/// its base plans (a base plan per access period), or a one-time product's id (no base plans).
public struct GooglePlayProductIds: Hashable, Sendable {
    /// The Play product id.
    public var productId: String
    /// The base plans of a subscription that buy the catalog product; empty for a one-time product.
    public var basePlanIds: [String]

    /// Creates the ids.
    public init(productId: String, basePlanIds: [String] = []) {
        self.productId = productId
        self.basePlanIds = basePlanIds
    }

    public static func == (lhs: GooglePlayProductIds, rhs: GooglePlayProductIds) -> Bool {
        lhs.productId.sameBytes(as: rhs.productId) && lhs.basePlanIds.count == rhs.basePlanIds.count
            && zip(lhs.basePlanIds, rhs.basePlanIds).allSatisfy { $0.sameBytes(as: $1) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactKey(productId))
        for id in basePlanIds { hasher.combine(ExactKey(id)) }
    }
}
