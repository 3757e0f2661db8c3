/// The protected header of a compact JWS (RFC 7515 §4): the parameters Masthead reads and writes.
public struct JWSHeader: Hashable, Sendable {
    /// `alg`: the signature algorithm; always `ES256` in a verified or signed token.
    public var algorithm: String
    /// `typ`, such as `JWT`; absent when the header has none.
    public var type: String?
    /// `kid`: the key's identifier (App Store Server API tokens); absent when the header has none.
    public var keyId: String?
    /// `x5c`: the certificate chain, leaf first, each entry base64 (not base64url) DER as written.
    public var certificateChain: [String]

    /// Creates a header.
    public init(algorithm: String = "ES256", type: String? = nil, keyId: String? = nil, certificateChain: [String] = []) {
        self.algorithm = algorithm
        self.type = type
        self.keyId = keyId
        self.certificateChain = certificateChain
    }
}
