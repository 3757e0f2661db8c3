public import Masthead

/// The payload of a signed app transaction (Apple's `JWSAppTransactionDecodedPayload`, the
/// `AppTransaction` of its library): the customer's purchase of the app itself, as Get App
/// Transaction Info answers it.
///
/// Every field Apple documents, each optional as in Apple's library; dates are `Instant`s. Read
/// it with ``init(decoding:)``; ``SignedDataVerifier/appTransaction(_:path:)`` verifies a token
/// and reads it.
public struct JWSAppTransactionDecodedPayload: Hashable, Sendable {
    /// The server environment that signed the app transaction (Apple's `receiptType`).
    public var receiptType: AppStoreEnvironment?
    /// The app's identifier in the App Store.
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The app version the app transaction applies to.
    public var applicationVersion: String?
    /// The identifier of that app version in the App Store.
    public var versionExternalIdentifier: Int64?
    /// When the App Store signed the app transaction: its `signedDate`.
    public var receiptCreationDate: Instant?
    /// When the customer first bought (or downloaded) the app.
    public var originalPurchaseDate: Instant?
    /// The app version the customer first bought.
    public var originalApplicationVersion: String?
    /// The base64 value a device checks the app transaction against.
    public var deviceVerification: String?
    /// The UUID used to compute ``deviceVerification``, in lower case.
    public var deviceVerificationNonce: String?
    /// When the customer pre-ordered the app, before it was in the App Store.
    public var preorderDate: Instant?
    /// The identifier of the app download transaction.
    public var appTransactionId: String?
    /// The platform the customer first bought the app on (`iOS`, `macOS`, `tvOS`, `visionOS`),
    /// kept as sent.
    public var originalPlatform: String?

    /// Creates a payload with no fields; set the ones wanted.
    public init() {}
}
