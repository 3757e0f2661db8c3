/// One parser or decoder the fuzzer feeds with arbitrary bytes.
///
/// Each target only returns or stops the process: a thrown error is an expected outcome, while a
/// trap, a memory error or a broken expectation (`precondition`) is a defect that libFuzzer
/// records as a crash.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `JSONDocument` parsing, then reading every value the document holds.
    case json
    /// `ReceiptDecoder` with the shipped catalog, then the entitlement rules over what it read.
    case receipt
    /// `NotificationDecoder` (version 1) with the shipped catalog, then the entitlement rules.
    case notification
    /// `HTTPRequestParser`, in one piece and in the pieces a slow client would send.
    case httpRequest = "http-request"
    /// `JWSVerifier` with test roots, a caching and an uncached verifier agreeing on every input.
    case jws
    /// The readers of signed data's payloads (version 2 notifications, transactions, renewal
    /// info) and of signed documents, the app checks, then the entitlement rules.
    case v2
    /// The readers of the App Store Server API's answers, before their tokens are verified.
    case serverAPI = "server-api"
    /// The readers of the publisher's grants: a grants file (CSV or JSON lines) and one grant's
    /// JSON, then the entitlement rules.
    case grants
    /// `AppReceipt`: PKCS #7 bytes, signed content and base64 text of an app receipt.
    case appReceipt = "app-receipt"
    /// Google Play: a JWKS document, a Pub/Sub push token verified with the test keys, or a
    /// service account key file, as the first byte chooses; and the same bytes read as each of
    /// Google's JSON bodies (Pub/Sub push, developer notification, subscription and one-time
    /// product reads, voided purchases), mapped onto the catalog, then the rules.
    case googlePlay = "google-play"

    /// Feeds one input to the target.
    package func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .json: JSONFuzzing.run(bytes)
        case .receipt: FormatsFuzzing.runReceipt(Array(bytes))
        case .notification: FormatsFuzzing.runNotification(Array(bytes))
        case .httpRequest: HTTPFuzzing.run(bytes)
        case .jws: JWSFuzzing.run(Array(bytes))
        case .v2: SignedDataFuzzing.run(Array(bytes))
        case .serverAPI: ServerAPIFuzzing.run(Array(bytes))
        case .grants: GrantsFuzzing.run(Array(bytes))
        case .appReceipt: AppReceiptFuzzing.run(Array(bytes))
        case .googlePlay:
            GooglePlayFuzzing.run(Array(bytes))
            GooglePlayJSONFuzzing.run(Array(bytes))
        }
    }

    /// Feeds one input given as an array.
    package func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { run($0) }
    }
}
