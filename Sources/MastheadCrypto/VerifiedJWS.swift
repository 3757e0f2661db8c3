public import MastheadJSON

/// A compact JWS whose chain and signature verified: what it says, and when it was judged.
public struct VerifiedJWS: Sendable {
    /// The header's parameters.
    public let header: JWSHeader
    /// The payload's bytes (UTF-8 JSON, an object).
    public let payload: [UInt8]
    /// The payload, parsed once for the checks: a JSON object, for the caller to read without parsing it again.
    public let payloadObject: JSONValue
    /// The payload's top-level `signedDate`, milliseconds since the Unix epoch; `nil` when it has none.
    public let signedDate: Int64?
    /// The instant the chain was judged valid at: `signedDate`, or the caller's "now" without one.
    public let judgedAt: Int64
    /// The leaf certificate, whose key verified the signature.
    public let leaf: Certificate
}
