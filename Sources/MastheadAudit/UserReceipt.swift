public import MastheadFormats

/// One usable line of a receipts file: a user and their verifyReceipt response, decoded.
public struct UserReceipt: Sendable {
    /// The line's number in the file, from 1.
    public var line: Int
    public var userId: String
    public var receipt: Receipt
    /// The response's `latest_receipt` (base64), kept to re-verify the subscription with Apple.
    public var latestReceipt: String?
}
