public import Masthead

/// The payload of a version 2 App Store Server Notification (Apple's `ResponseBodyV2DecodedPayload`).
///
/// Type and subtype are kept raw, so a type Apple adds later is read, not refused. The signed
/// transaction and renewal info inside ``data`` are handed back as the tokens they are: the
/// caller verifies each, then reads it with ``SignedDataDecoder``. Exactly one of ``data``,
/// ``summary``, ``externalPurchaseToken`` and ``appData`` is present, depending on the type.
public struct ResponseBodyV2DecodedPayload: Hashable, Sendable {
    public var notificationType: NotificationTypeV2?
    public var subtype: NotificationSubtype?
    /// The notification's identifier, in lower case: the same for every retry of one notification.
    public var notificationUUID: String?
    /// The app, environment and signed data the notification is about.
    public var data: NotificationData?
    /// The notification format's version, `"2.0"`.
    public var version: String?
    /// When the App Store signed the notification.
    public var signedDate: Instant?
    /// The outcome of a renewal date extension for many subscriptions (`RENEWAL_EXTENSION`, `SUMMARY`).
    public var summary: NotificationSummary?
    /// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`).
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// The app the notification is about, when it concerns no purchase (`RESCIND_CONSENT`).
    public var appData: NotificationAppData?

    /// Creates a payload with no fields; set the ones wanted.
    public init() {}
}

/// The app, environment and signed data a notification is about (Apple's `data`).
public struct NotificationData: Hashable, Sendable {
    public var environment: AppStoreEnvironment?
    /// The app's identifier in the App Store; absent in the sandbox.
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    /// The transaction, as a signed token (JWS) still to verify.
    public var signedTransactionInfo: String?
    /// The subscription's renewal info, as a signed token (JWS) still to verify.
    public var signedRenewalInfo: String?
    /// The subscription's status as of the notification's `signedDate`.
    public var status: AppStoreSubscriptionStatus?
    public var consumptionRequestReason: ConsumptionRequestReason?

    /// Creates empty data.
    public init() {}
}

/// The outcome of a request to extend many subscriptions' renewal dates (Apple's `summary`).
public struct NotificationSummary: Hashable, Sendable {
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?
    /// The storefronts the extension covered.
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    /// Creates an empty summary.
    public init() {}
}

/// An external purchase token (Apple's `externalPurchaseToken`).
public struct ExternalPurchaseToken: Hashable, Sendable {
    /// The token's identifier; one starting with `SANDBOX` comes from the sandbox.
    public var externalPurchaseId: String?
    public var tokenCreationDate: Instant?
    public var appAppleId: Int64?
    public var bundleId: String?

    /// Creates an empty token.
    public init() {}
}

/// The app a notification is about when it concerns no purchase (Apple's `appData`).
public struct NotificationAppData: Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    /// The app transaction, as a signed token (JWS) still to verify.
    public var signedAppTransactionInfo: String?

    /// Creates empty app data.
    public init() {}
}
