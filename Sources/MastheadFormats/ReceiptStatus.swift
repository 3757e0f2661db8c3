/// The `status` codes of Apple's verifyReceipt endpoint and what they mean (R2.4).
public enum ReceiptStatus {
    /// Whether a receipt with this status is used: 0 (valid) and 21006 (valid, subscription expired).
    public static func isUsable(_ status: Int) -> Bool { status == 0 || status == 21006 }

    /// Whether Apple says the same request may succeed later (21005, 21100–21199).
    public static func isRetryable(_ status: Int) -> Bool { status == 21005 || (21100...21199).contains(status) }

    /// What a status code means, in Apple's words where it gives them.
    public static func meaning(_ status: Int) -> String {
        switch status {
        case 0: "valid"
        case 21000: "the App Store could not read the request (not a POST, or malformed JSON)"
        case 21001: "deprecated status (no longer sent by the App Store)"
        case 21002: "the receipt-data property was malformed or the service had a temporary issue"
        case 21003: "the receipt could not be authenticated"
        case 21004: "the shared secret does not match the one on file for the account"
        case 21005: "the receipt server was temporarily unable to provide the receipt"
        case 21006: "valid, but the subscription has expired"
        case 21007: "environment mismatch: a sandbox (test) receipt was sent to the production environment"
        case 21008: "environment mismatch: a production receipt was sent to the sandbox environment"
        case 21009: "internal data access error"
        case 21010: "the user account cannot be found or has been deleted"
        case 21100...21199: "internal data access error (retryable)"
        default: "unknown status"
        }
    }
}
