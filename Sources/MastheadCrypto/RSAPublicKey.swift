import COpenSSL

/// An RSA public key that verifies RS256 signatures (``RS256``): from a JWK's `n` and `e`
/// (RFC 7518 §6.3.1) or from a PEM SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`).
///
/// Only moduli of 2048 to 8192 bits are accepted: smaller ones can be forged, larger ones cost a
/// verifier more than any signer needs. Safe to use from several
/// threads at once (each verification has its own OpenSSL context).
public struct RSAPublicKey: Sendable {
    let handle: PublicKeyHandle

    /// The key of modulus `modulus` and public exponent `exponent`, both unsigned big-endian
    /// without leading zero bytes (as a JWK's `n` and `e` decode).
    /// - Throws: ``SignatureError/invalidRSAKey(reason:)`` for an empty or zero-padded value, an
    ///   even or too small exponent, or a modulus outside the accepted sizes.
    public init(modulus: [UInt8], exponent: [UInt8]) throws(SignatureError) {
        guard let first = modulus.first else { throw .invalidRSAKey(reason: "the modulus is empty") }
        guard first != 0 else { throw .invalidRSAKey(reason: "the modulus has a leading zero byte") }
        guard let exponentFirst = exponent.first else { throw .invalidRSAKey(reason: "the exponent is empty") }
        guard exponentFirst != 0 else { throw .invalidRSAKey(reason: "the exponent has a leading zero byte") }
        guard exponent.count <= 8 else { throw .invalidRSAKey(reason: "the exponent is \(exponent.count) bytes; at most 8 are accepted") }
        let value = exponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value >= 3, value & 1 == 1 else { throw .invalidRSAKey(reason: "the exponent \(value) is not an odd number of at least 3") }
        let bits = modulus.count * 8 - first.leadingZeroBitCount
        try RSAKeySize.check(bits: bits)
        try self.init(subjectPublicKeyInfo: RSAPublicKey.subjectPublicKeyInfo(modulus: modulus, exponent: exponent), what: "the modulus and exponent")
    }

    /// The one public key of PEM text: a `PUBLIC KEY` block (SubjectPublicKeyInfo) holding an RSA key.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` when the text holds no such block or
    ///   several, ``SignatureError/invalidRSAKey(reason:)`` when it is not an RSA key of an accepted size.
    public init(pem text: String) throws(SignatureError) {
        let blocks = try PEM.blocks(in: text).filter { $0.label == "PUBLIC KEY" }
        guard blocks.count == 1, let block = blocks.first else {
            throw .invalidPEM(reason: blocks.isEmpty ? "no -----BEGIN PUBLIC KEY----- block" : "\(blocks.count) public keys; expected one")
        }
        try self.init(subjectPublicKeyInfo: block.der, what: "PUBLIC KEY (line \(block.line))")
    }

    /// Reads DER SubjectPublicKeyInfo, which must be all of `der` and an RSA key of an accepted size.
    private init(subjectPublicKeyInfo der: [UInt8], what: String) throws(SignatureError) {
        var consumed = 0
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return parsed
        }
        guard let key else { throw .invalidRSAKey(reason: "\(what): \(OpenSSL.takeErrors(or: "OpenSSL cannot read it"))") }
        handle = PublicKeyHandle(key)
        guard consumed == der.count else { throw .invalidRSAKey(reason: "\(what): \(der.count - consumed) bytes follow the key") }
        try RSAKeySize.check(key)
    }

    /// The modulus, unsigned big-endian without leading zeros (a JWK's `n` once base64url encoded).
    public var modulus: [UInt8] { RSAKeySize.parameter("n", of: handle.pointer) }

    /// The public exponent, unsigned big-endian without leading zeros (a JWK's `e`).
    public var exponent: [UInt8] { RSAKeySize.parameter("e", of: handle.pointer) }

    /// The size of the modulus in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(handle.pointer)) }

    /// DER `SubjectPublicKeyInfo` of an RSA key (RFC 3279 §2.3.1): `rsaEncryption` with NULL
    /// parameters, and the `RSAPublicKey` sequence in a bit string.
    static func subjectPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let integers = DER.integer(modulus) + DER.integer(exponent)
        let rsaPublicKey = DER.element(0x30, integers)
        // 1.2.840.113549.1.1.1 rsaEncryption, then NULL.
        let algorithm = DER.element(0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        return DER.element(0x30, algorithm + DER.element(0x03, [0x00] + rsaPublicKey))
    }
}

/// The sizes of RSA key accepted, and reading a key's parameters.
enum RSAKeySize {
    /// The smallest modulus accepted, in bits.
    static let minimumBits = 2048
    /// The largest modulus accepted, in bits.
    static let maximumBits = 8192

    /// Checks a modulus size.
    /// - Throws: ``SignatureError/invalidRSAKey(reason:)`` outside the accepted sizes.
    static func check(bits: Int) throws(SignatureError) {
        guard bits >= minimumBits else { throw .invalidRSAKey(reason: "a \(bits)-bit modulus; at least \(minimumBits) bits are required") }
        guard bits <= maximumBits else { throw .invalidRSAKey(reason: "a \(bits)-bit modulus; at most \(maximumBits) bits are accepted") }
    }

    /// Checks that `key` is a plain RSA key (not RSA-PSS, nor another kind) of an accepted size.
    static func check(_ key: OpaquePointer) throws(SignatureError) {
        let type = EVP_PKEY_get_base_id(key)
        guard type == EVP_PKEY_RSA else {
            let name = OBJ_nid2sn(type).map { String(cString: $0) } ?? "type \(type)"
            throw .invalidRSAKey(reason: "a \(name) key, not an RSA key")
        }
        try check(bits: Int(EVP_PKEY_get_bits(key)))
    }

    /// The big-number parameter `name` (`n`, `e`) of an RSA key, unsigned big-endian.
    static func parameter(_ name: String, of key: OpaquePointer) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            ERR_clear_error()
            return []
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        _ = BN_bn2bin(number, &bytes)
        return bytes
    }
}

/// The few DER encodings an RSA SubjectPublicKeyInfo needs.
enum DER {
    /// A tag, its length (short or long form) and `content`.
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var count = content.count
            while count > 0 {
                length.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }

    /// A non-negative INTEGER holding the unsigned big-endian `magnitude` (no leading zero): a
    /// zero byte added when the top bit is set.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        element(0x02, (magnitude.first ?? 0) >= 0x80 ? [0] + magnitude : magnitude)
    }
}

/// An OpenSSL `EVP_PKEY` holding a public key, freed with its last reference; read-only, so
/// shared between threads.
final class PublicKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }
}
