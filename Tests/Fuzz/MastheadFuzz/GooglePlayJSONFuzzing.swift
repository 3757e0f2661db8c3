import Masthead
import MastheadFormats

/// The Google Play decoders' target: the input read as each of Google's bodies (a Pub/Sub push
/// and the notification it carries, a subscription or a one-time product read, a voided
/// purchases page); a read is mapped onto the shipped catalog and decided, as the service does.
enum GooglePlayJSONFuzzing {
    static let readAt = Instant(milliseconds: 1_593_648_000_000)

    static func run(_ bytes: [UInt8]) {
        if let push = try? PubSubPush.decode(bytes) { _ = try? DeveloperNotification.decode(push.data) }
        _ = try? DeveloperNotification.decode(bytes)
        _ = try? VoidedPurchasesPage.decode(bytes)
        if let subscription = try? SubscriptionPurchaseV2.decode(bytes) {
            let first = GooglePlayObservation(subscription: subscription, purchaseToken: "fuzz", catalog: FormatsFuzzing.catalog, readAt: readAt)
            // A second read of the same token, after a hold, with the first read's orders.
            let again = GooglePlayObservation(
                subscription: subscription, purchaseToken: "fuzz", catalog: FormatsFuzzing.catalog, readAt: readAt.adding(milliseconds: 1),
                previousOrders: first.orders, previousState: .onHold)
            for order in again.orders { precondition(order.expiry.map { $0 >= order.start } ?? true, "an order ending before it starts") }
            evaluate(first.orders + again.orders)
        }
        if let product = try? GooglePlayProductPurchase.decode(bytes) {
            for playProductId in ["issue_2020_05", "pass_1m"] {
                let observation = GooglePlayObservation(
                    product: product, purchaseToken: "fuzz", playProductId: playProductId, catalog: FormatsFuzzing.catalog, readAt: readAt)
                evaluate(observation.orders)
            }
        }
    }

    static func evaluate(_ orders: [GooglePlayOrder]) {
        let history = PurchaseHistory(transactions: orders.map { $0.transaction(chainId: "fuzz") })
        FormatsFuzzing.evaluate(history, environment: .production)
        FormatsFuzzing.evaluate(history, environment: .sandbox)
    }
}
