/// The orders Masthead holds of one Google Play purchase token, with the token it replaced.
public struct GooglePlayTokenOrders: Hashable, Sendable {
    public var purchaseToken: String
    /// The token this purchase replaced (`linkedPurchaseToken`); nil for the first of a chain.
    public var linkedPurchaseToken: String?
    public var orders: [GooglePlayOrder]

    /// Creates a token's orders.
    public init(purchaseToken: String, linkedPurchaseToken: String? = nil, orders: [GooglePlayOrder]) {
        self.purchaseToken = purchaseToken
        self.linkedPurchaseToken = linkedPurchaseToken
        self.orders = orders
    }

    /// The token's orders as transactions of the engine (R18): each token joins the chain of
    /// the token it replaced, followed back to the first one Masthead holds, whose first order
    /// (by start, then id bytes) names the chain; a token replaced by another ends at the start
    /// of that token's first order (R5.2, the earliest when several name it). Tokens are compared
    /// by their exact bytes; a cycle of links (which Google never sends) is cut where it closes.
    public static func transactions(_ tokens: [GooglePlayTokenOrders]) -> [Transaction] {
        var byToken: [ExactKey: GooglePlayTokenOrders] = [:]
        for token in tokens { byToken[ExactKey(token.purchaseToken)] = token }
        var replacedAt: [ExactKey: Instant] = [:]
        for token in tokens {
            guard let linked = token.linkedPurchaseToken, let start = token.firstOrder?.start else { continue }
            replacedAt[ExactKey(linked)] = min(replacedAt[ExactKey(linked)] ?? start, start)
        }
        return tokens.flatMap { token -> [Transaction] in
            let chainId = root(of: token, in: byToken).firstOrder?.orderId ?? token.firstOrder?.orderId ?? ""
            let replaced = replacedAt[ExactKey(token.purchaseToken)]
            return token.orders.map { $0.transaction(chainId: chainId, replacedAt: replaced) }
        }
    }

    /// The first order: the earliest start, then the smallest id bytes.
    var firstOrder: GooglePlayOrder? {
        orders.min { $0.start != $1.start ? $0.start < $1.start : $0.orderId.precedesInBytes($1.orderId) }
    }

    /// The first token of `token`'s chain that Masthead holds.
    private static func root(of token: GooglePlayTokenOrders, in byToken: [ExactKey: GooglePlayTokenOrders]) -> GooglePlayTokenOrders {
        var current = token
        var seen: Set<ExactKey> = [ExactKey(token.purchaseToken)]
        while let linked = current.linkedPurchaseToken, let previous = byToken[ExactKey(linked)], seen.insert(ExactKey(linked)).inserted {
            current = previous
        }
        return current
    }
}
