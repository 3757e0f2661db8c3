public import Masthead

/// One usable line of a receipts file: a user and the purchases of their verifyReceipt response
/// or of their signed data, decoded (signed data verified), and the publisher's grants it carries.
public struct UserReceipt: Sendable {
    /// The line's number in the file, from 1.
    public var line: Int
    public var userId: String
    /// The transactions, renewal info and grants (R17) the line carries.
    public var history: PurchaseHistory
    /// The response's `latest_receipt` (base64), kept to re-verify the subscription with Apple;
    /// nil for signed data.
    public var latestReceipt: String?
}
