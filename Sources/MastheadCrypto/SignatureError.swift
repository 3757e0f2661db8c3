/// Why signed data, a certificate or a key was refused: one case per refusal, each naming what was
/// wrong and where.
public enum SignatureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The token is not a compact JWS: `part` names the piece at fault, `reason` what is wrong with it.
    case malformedToken(part: JWSPart, reason: String)
    /// The header's `alg` is not `ES256` (`none` included).
    case unsupportedAlgorithm(String)
    /// The header's `x5c` does not hold exactly three certificates (leaf, intermediate, root).
    case wrongChainLength(count: Int)
    /// The `x5c` entry at `index` (0 leaf, 1 intermediate) is not a base64 DER certificate.
    case undecodableCertificate(index: Int, reason: String)
    /// The leaf and intermediate do not chain to a configured root certificate; `reason` is
    /// OpenSSL's, with the certificate it concerns.
    case untrustedChain(reason: String)
    /// A certificate of the chain had expired at the instant the chain was judged at.
    /// Instants are milliseconds since the Unix epoch.
    case certificateExpired(CertificateRole, subject: String, notAfter: Int64, at: Int64)
    /// A certificate of the chain was not yet valid at the instant the chain was judged at.
    case certificateNotYetValid(CertificateRole, subject: String, notBefore: Int64, at: Int64)
    /// The leaf certificate lacks the extension `oid` (Apple's receipt-signing OID by default).
    case missingLeafOID(String, subject: String)
    /// The intermediate certificate lacks the extension `oid` (Apple's WWDR OID by default).
    case missingIntermediateOID(String, subject: String)
    /// The ES256 signature does not verify with the leaf's key over `header.payload`, or is not
    /// a 64-byte r‖s value.
    case invalidSignature(reason: String)
    /// A key (a certificate's or a private key) is not an elliptic-curve P-256 key; `found` names what it is.
    case keyNotP256(found: String)
    /// An RSA key that is refused: not RSA, a modulus under 2048 or over 8192 bits, or a malformed
    /// modulus or exponent; `reason` says which (never the key's bytes).
    case invalidRSAKey(reason: String)
    /// Text that should be base64 is not (strict: alphabet, padding, canonical final bits).
    case invalidBase64(alphabet: Base64.Alphabet, reason: String)
    /// Bytes that should be one DER certificate are not.
    case invalidCertificate(reason: String)
    /// PEM text that should hold certificates or a key does not; `reason` names the block or line.
    case invalidPEM(reason: String)
    /// A PEM private key that OpenSSL cannot read.
    case invalidPrivateKey(reason: String)
    /// OpenSSL failed at something that does not depend on the input (memory, a missing algorithm).
    case openSSL(function: String, reason: String)

    public var description: String {
        switch self {
        case .malformedToken(let part, let reason): "malformed JWS: the \(part.rawValue) \(reason)"
        case .unsupportedAlgorithm(let algorithm): "unsupported JWS algorithm \"\(algorithm)\": only ES256 is accepted"
        case .wrongChainLength(let count): "the JWS header's x5c holds \(count) certificates; exactly 3 (leaf, intermediate, root) are required"
        case .undecodableCertificate(let index, let reason): "x5c[\(index)] is not a certificate: \(reason)"
        case .untrustedChain(let reason): "the certificate chain does not lead to a configured root certificate: \(reason)"
        case .certificateExpired(let role, let subject, let notAfter, let at):
            "the \(role) certificate (\(subject)) expired at \(UTCTime.text(milliseconds: notAfter)); judged at \(UTCTime.text(milliseconds: at))"
        case .certificateNotYetValid(let role, let subject, let notBefore, let at):
            "the \(role) certificate (\(subject)) is valid only from \(UTCTime.text(milliseconds: notBefore)); judged at \(UTCTime.text(milliseconds: at))"
        case .missingLeafOID(let oid, let subject): "the leaf certificate (\(subject)) lacks the extension \(oid)"
        case .missingIntermediateOID(let oid, let subject): "the intermediate certificate (\(subject)) lacks the extension \(oid)"
        case .invalidSignature(let reason): "invalid ES256 signature: \(reason)"
        case .keyNotP256(let found): "the key is not a P-256 key: \(found)"
        case .invalidRSAKey(let reason): "unusable RSA key: \(reason)"
        case .invalidBase64(let alphabet, let reason): "invalid \(alphabet): \(reason)"
        case .invalidCertificate(let reason): "not a DER certificate: \(reason)"
        case .invalidPEM(let reason): "invalid PEM: \(reason)"
        case .invalidPrivateKey(let reason): "unreadable private key: \(reason)"
        case .openSSL(let function, let reason): "OpenSSL's \(function) failed: \(reason)"
        }
    }
}

/// The three pieces of a compact JWS, and the token as a whole.
public enum JWSPart: String, Hashable, Sendable {
    /// The whole token (its shape: three parts separated by dots).
    case token
    /// The first part: the protected header.
    case header
    /// The second part: the signed payload.
    case payload
    /// The third part: the signature.
    case signature
}

/// Where a certificate sits in a verified chain.
public enum CertificateRole: String, Hashable, Sendable, CustomStringConvertible {
    /// The certificate whose key signs the data (`x5c[0]`).
    case leaf
    /// The certificate that issued the leaf (`x5c[1]`).
    case intermediate
    /// The configured root certificate the chain ends at.
    case root

    public var description: String { rawValue }
}
