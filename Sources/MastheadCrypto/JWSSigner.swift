import MastheadJSON

/// Signs payloads as compact JWS with ES256 under one header: an `x5c` chain (signed data as
/// Apple makes it) or a `kid` (App Store Server API tokens).
public struct JWSSigner: Sendable {
    /// The key that signs.
    public let key: SigningKey
    /// The header every token carries (`alg` is `ES256`).
    public let header: JWSHeader
    /// Whether nonces come from the key and the payload (RFC 6979): the same payload, the same token.
    public let isDeterministic: Bool
    /// The header's JSON, base64url: the first part of every token.
    private let encodedHeader: String

    /// A signer writing `{"alg":"ES256","typ":…,"kid":…,"x5c":[…]}`, leaving out what is absent.
    /// - Parameters:
    ///   - key: the signing key.
    ///   - certificateChain: the `x5c` certificates, leaf first; the leaf must hold `key`'s public half.
    ///   - keyId: the `kid`.
    ///   - type: the `typ`.
    ///   - deterministic: sign with nonces derived from the key and the payload
    ///     (``SigningKey/deterministicSignature(for:)``), so that the same payload always gives
    ///     the same token: for generated data; by default nonces are random, as OpenSSL draws them.
    /// - Throws: ``SignatureError/invalidPrivateKey(reason:)`` when the chain's leaf is not `key`'s.
    public init(key: SigningKey, certificateChain: [Certificate] = [], keyId: String? = nil, type: String? = "JWT", deterministic: Bool = false
    ) throws(SignatureError) {
        if let leaf = certificateChain.first, !key.isKey(of: leaf) {
            throw .invalidPrivateKey(reason: "it is not the key of the chain's leaf certificate (\(leaf.subject))")
        }
        self.key = key
        isDeterministic = deterministic
        header = JWSHeader(type: type, keyId: keyId, certificateChain: certificateChain.map { Base64.encode($0.der, .standard) })
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("alg")
        writer.string(header.algorithm)
        if let type {
            writer.key("typ")
            writer.string(type)
        }
        if let keyId {
            writer.key("kid")
            writer.string(keyId)
        }
        if !header.certificateChain.isEmpty {
            writer.key("x5c")
            writer.beginArray()
            for certificate in header.certificateChain { writer.string(certificate) }
            writer.endArray()
        }
        writer.endObject()
        encodedHeader = Base64.encode(writer.bytes, .url)
    }

    /// The compact JWS of `payload`: `header.payload.signature`, each part base64url.
    public func sign(_ payload: [UInt8]) throws(SignatureError) -> String {
        let signingInput = encodedHeader + "." + Base64.encode(payload, .url)
        let message = Array(signingInput.utf8)
        let signature = try isDeterministic ? key.deterministicSignature(for: message) : key.signature(for: message)
        return signingInput + "." + Base64.encode(signature, .url)
    }
}
