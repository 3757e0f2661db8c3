import MastheadCrypto

/// The `Masthead-Signature` header of a delivery, as Stripe signs its webhooks:
/// `t=<Unix seconds>,v1=<lower-case hex HMAC-SHA256(secret, "<t>.<body>")>`. A receiver
/// recomputes it over the body's bytes as received and refuses a `t` too far from its own clock.
enum WebhookSignature {
    /// The header value signing `body` at `seconds` with `secret`.
    static func header(secret: [UInt8], body: [UInt8], seconds: Int64) throws(SignatureError) -> String {
        let timestamp = String(seconds)
        return "t=\(timestamp),v1=\(try HMACSHA256.hex(key: secret, message: Array((timestamp + ".").utf8) + body))"
    }
}
