public import Masthead

extension GooglePlayObservation {
    /// What a read of a subscription's token says, mapped onto the catalog (R18).
    ///
    /// Each line item is an order: its `latestSuccessfulOrderId`, else the purchase's
    /// `latestOrderId`, bought as the catalog product its (product id, base plan) names; one whose
    /// ids the catalog does not map is listed in ``unknownProductIds`` and bought as the unknown
    /// product ``GooglePlayOrder/unknownProductId(playProductId:basePlanId:)``, which grants
    /// nothing and is counted as unknown App Store products are (R3). An order
    /// ends at the item's `expiryTime`; in a state that gives no access (on hold, paused,
    /// expired, or a state Google adds later) no later than `readAt`. A pending purchase gives
    /// no order. An order already known keeps its start; a new one starts at `startTime` when it
    /// is the first order Masthead sees of the token, at the expiry of the token's previous order
    /// when it renews it, and at `readAt` when Masthead saw the token on hold or paused since then
    /// (a hold or pause is a lapse, and Google does not say when the payment recovered).
    /// - Parameters:
    ///   - previousOrders: the token's orders Masthead stored from earlier reads.
    ///   - previousState: the state the token's last earlier read gave; nil for its first read.
    public init(
        subscription: SubscriptionPurchaseV2, purchaseToken: String, catalog: Catalog, readAt: Instant,
        previousOrders: [GooglePlayOrder] = [], previousState: GooglePlaySubscriptionState? = nil
    ) {
        let environment: Environment = subscription.isTestPurchase ? .sandbox : .production
        var orders: [GooglePlayOrder] = []
        var unknown: [String] = []
        let makesOrders = !(subscription.subscriptionState == .pending || subscription.subscriptionState == .pendingPurchaseCanceled)
        for item in subscription.lineItems where makesOrders {
            let product = catalog.product(googlePlayProductId: item.productId, basePlanId: item.basePlanId)
            let productId = product?.productId ?? GooglePlayOrder.unknownProductId(playProductId: item.productId, basePlanId: item.basePlanId)
            if product == nil { unknown.append(item.productId + (item.basePlanId.map { "/" + $0 } ?? "")) }
            // The decoder checked that a purchase past pending has these.
            guard var orderId = item.latestSuccessfulOrderId ?? subscription.latestOrderId, let startTime = subscription.startTime,
                let expiryTime = item.expiryTime
            else { continue }
            // Items bought by one order: the later ones are told apart by their Play product id.
            if orders.contains(where: { $0.orderId.sameBytes(as: orderId) }) { orderId += "/" + item.productId }
            var expiry: Instant?
            if product.map({ $0.type == .autoRenewable }) ?? true {
                expiry = subscription.subscriptionState.givesAccess ? expiryTime : min(expiryTime, readAt)
            }
            let start = Self.start(
                ofOrder: orderId, productId: productId, startTime: startTime, readAt: readAt, previousOrders: previousOrders,
                previousState: previousState)
            let first = previousOrders.first { $0.orderId.sameBytes(as: orderId) }
            orders.append(
                GooglePlayOrder(
                    purchaseToken: purchaseToken, orderId: orderId, productId: productId, start: start,
                    expiry: expiry.map { max($0, start) }, environment: environment, refunded: first?.refunded,
                    refundIsProrated: first?.refundIsProrated ?? false, observed: first?.observed ?? readAt))
        }
        self.init(
            purchaseToken: purchaseToken, linkedPurchaseToken: subscription.linkedPurchaseToken, state: subscription.subscriptionState,
            acknowledged: subscription.acknowledged, obfuscatedExternalAccountId: subscription.obfuscatedExternalAccountId,
            playProductId: subscription.lineItems.first?.productId ?? "", orders: orders, unknownProductIds: unknown)
    }

    /// What a read of a one-time product's token says, mapped onto the catalog (R18): a
    /// purchased product is one order from its `purchaseTimeMillis`, without expiry (the catalog
    /// product's type decides what it gives: a single issue, a pass, a free subscription); a
    /// cancelled one is that order refunded in full no later than `readAt` (R5.1; an earlier
    /// voided time stored for it stands, and a partial refund stored becomes a full one); a
    /// pending one gives nothing. The quantity does not
    /// multiply what it gives. A product the catalog does not map is listed in
    /// ``unknownProductIds`` and bought as an unknown product, as for subscriptions.
    /// - Parameters:
    ///   - playProductId: the Play product id the token was read for (the notification's `sku`).
    ///   - previousOrders: the token's orders Masthead stored from earlier reads.
    public init(
        product purchase: GooglePlayProductPurchase, purchaseToken: String, playProductId: String, catalog: Catalog, readAt: Instant,
        previousOrders: [GooglePlayOrder] = []
    ) {
        var orders: [GooglePlayOrder] = []
        var unknown: [String] = []
        if let orderId = purchase.orderId, let purchaseTime = purchase.purchaseTime, purchase.purchaseState != .oneTimePending {
            let product = catalog.product(googlePlayProductId: playProductId, basePlanId: nil)
            if product == nil { unknown.append(playProductId) }
            let first = previousOrders.first { $0.orderId.sameBytes(as: orderId) }
            var order = GooglePlayOrder(
                purchaseToken: purchaseToken, orderId: orderId,
                productId: product?.productId ?? GooglePlayOrder.unknownProductId(playProductId: playProductId, basePlanId: nil),
                start: purchaseTime, expiry: nil, environment: purchase.isTestPurchase ? .sandbox : .production, refunded: first?.refunded,
                refundIsProrated: first?.refundIsProrated ?? false, observed: first?.observed ?? readAt)
            if purchase.purchaseState == .oneTimeCanceled { order = order.refunding(at: readAt, prorated: false) }
            orders.append(order)
        }
        self.init(
            purchaseToken: purchaseToken, state: purchase.purchaseState, acknowledged: purchase.acknowledged,
            obfuscatedExternalAccountId: purchase.obfuscatedExternalAccountId, playProductId: playProductId, orders: orders,
            unknownProductIds: unknown)
    }

    /// The start of a subscription order (R18): a known order's stored start; else `startTime`
    /// for the first order Masthead sees of the token; else the latest expiry of the token's
    /// earlier orders of the same product (of any product when none), a renewal continuing
    /// them; but no earlier than `readAt` when the token's last read was on hold or paused.
    static func start(
        ofOrder orderId: String, productId: String, startTime: Instant, readAt: Instant, previousOrders: [GooglePlayOrder],
        previousState: GooglePlaySubscriptionState?
    ) -> Instant {
        if let known = previousOrders.first(where: { $0.orderId.sameBytes(as: orderId) }) { return known.start }
        let sameProduct = previousOrders.filter { $0.productId.sameBytes(as: productId) }
        let earlier = (sameProduct.isEmpty ? previousOrders : sameProduct).compactMap(\.expiry).max()
        guard let earlier else { return startTime }
        if previousState?.isSuspended == true { return max(earlier, readAt) }
        return earlier
    }
}
