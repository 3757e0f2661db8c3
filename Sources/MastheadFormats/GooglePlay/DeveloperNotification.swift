public import Masthead
import MastheadJSON

/// A Google Play real-time developer notification (the `data` of a Pub/Sub push): which
/// purchase changed; Masthead then reads the purchase itself (R18).
public struct DeveloperNotification: Hashable, Sendable {
    /// The notification format's version (`"1.0"`).
    public var version: String
    /// The app's package name.
    public var packageName: String
    /// When the event happened.
    public var eventTime: Instant
    /// What the notification is about.
    public var kind: Kind

    /// The one payload a notification carries.
    public enum Kind: Hashable, Sendable {
        /// `subscriptionNotification`: a subscription's state changed (`notificationType` 1–20).
        case subscription(notificationType: Int64, purchaseToken: String, subscriptionId: String?)
        /// `oneTimeProductNotification`: a one-time purchase was made (1) or cancelled (2).
        case oneTimeProduct(notificationType: Int64, purchaseToken: String, sku: String)
        /// `voidedPurchaseNotification`: an order was refunded, charged back or revoked.
        /// `productType` 1 is a subscription, 2 a one-time product; `refundType` 1 a full
        /// refund, 2 a partial one (R18).
        case voidedPurchase(purchaseToken: String, orderId: String, productType: Int64, refundType: Int64)
        /// `testNotification`, sent from the Play Console.
        case test
    }

    /// Creates a notification.
    public init(version: String, packageName: String, eventTime: Instant, kind: Kind) {
        self.version = version
        self.packageName = packageName
        self.eventTime = eventTime
        self.kind = kind
    }

    /// Reads a notification: `version`, `packageName` and `eventTimeMillis` are required, and
    /// exactly one of `subscriptionNotification`, `oneTimeProductNotification`,
    /// `voidedPurchaseNotification` and `testNotification`; members Google adds are ignored.
    /// - Throws: ``FormatError`` naming the JSON path of what is missing or wrong.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> DeveloperNotification {
        let root = try GooglePlayFields(try JSONValue.parsed(bytes), "$", what: "a developer notification object")
        let version = try root.required("version") { (key) throws(FormatError) in try root.string(key) }
        let packageName = try root.required("packageName") { (key) throws(FormatError) in try root.identifier(key) }
        let eventTime = try root.required("eventTimeMillis") { (key) throws(FormatError) in try root.milliseconds(key) }
        var kinds: [Kind] = []
        if let payload = try root.object("subscriptionNotification", what: "a subscription notification object") {
            kinds.append(
                .subscription(
                    notificationType: try payload.required("notificationType") { (key) throws(FormatError) in try payload.int(key) },
                    purchaseToken: try payload.required("purchaseToken") { (key) throws(FormatError) in try payload.identifier(key) },
                    subscriptionId: try payload.identifier("subscriptionId")))
        }
        if let payload = try root.object("oneTimeProductNotification", what: "a one-time product notification object") {
            kinds.append(
                .oneTimeProduct(
                    notificationType: try payload.required("notificationType") { (key) throws(FormatError) in try payload.int(key) },
                    purchaseToken: try payload.required("purchaseToken") { (key) throws(FormatError) in try payload.identifier(key) },
                    sku: try payload.required("sku") { (key) throws(FormatError) in try payload.identifier(key) }))
        }
        if let payload = try root.object("voidedPurchaseNotification", what: "a voided purchase notification object") {
            kinds.append(
                .voidedPurchase(
                    purchaseToken: try payload.required("purchaseToken") { (key) throws(FormatError) in try payload.identifier(key) },
                    orderId: try payload.required("orderId") { (key) throws(FormatError) in try payload.identifier(key) },
                    productType: try payload.required("productType") { (key) throws(FormatError) in try payload.int(key) },
                    refundType: try payload.required("refundType") { (key) throws(FormatError) in try payload.int(key) }))
        }
        if try root.object("testNotification", what: "a test notification object") != nil { kinds.append(.test) }
        guard kinds.count == 1 else {
            throw .invalidValue(
                path: "$", line: root.object.line, value: kinds.isEmpty ? "no notification" : "\(kinds.count) notifications",
                expected: "exactly one of subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification")
        }
        return DeveloperNotification(version: version, packageName: packageName, eventTime: eventTime, kind: kinds[0])
    }
}
