import MastheadFormats
import MastheadJSON

/// Hints for the receipts route's mistakes people make often: what was detected and what to send instead.
extension ServiceRouter {
    /// What the receipts route's body is when it is not a verifyReceipt response but something
    /// often sent there instead, and what to send; nil otherwise. `root` is the parsed body, nil
    /// when it is not JSON.
    static func receiptBodyHint(body: [UInt8], root: JSONValue?) -> String? {
        if let root {
            if root.kind == .object, root.member("receipt-data") != nil, root.member("status") == nil {
                return #"the body is a verifyReceipt request ({"receipt-data": …}): send it to Apple's verifyReceipt from your backend "#
                    + #"and post Apple's answer (the JSON object with "status") here"#
            }
            guard let text = root.string, isBase64Receipt(Array(text.utf8)) else { return nil }
        } else {
            guard isBase64Receipt(body) else { return nil }
        }
        return "the body looks like a base64 app receipt: send it to Apple's verifyReceipt from your backend and post Apple's answer "
            + "(the JSON object with \"status\") here; a StoreKit 2 app posts its signed transactions to /v1/users/{userId}/transactions"
    }

    /// Whether `bytes` (surrounding whitespace aside) are a long run of base64, as an app
    /// receipt is (a PKCS #7 container; thousands of characters).
    private static func isBase64Receipt(_ bytes: [UInt8]) -> Bool {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let text = bytes.drop { whitespace.contains($0) }.reversed().drop { whitespace.contains($0) }
        guard text.count >= minimumReceiptCharacters else { return false }
        return text.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }

    /// The fewest characters taken for a base64 receipt: less is more likely a mistyped word.
    static let minimumReceiptCharacters = 32
}
