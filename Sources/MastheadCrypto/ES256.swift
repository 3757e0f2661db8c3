import COpenSSL

/// The two encodings of an ECDSA P-256 signature: JWS's raw r‖s (RFC 7518 §3.4) and the DER
/// `ECDSA-Sig-Value` OpenSSL reads and writes (RFC 3279 §2.2.3).
enum ES256 {
    /// The DER `SEQUENCE { r INTEGER, s INTEGER }` of a 64-byte r‖s signature.
    static func derSignature(raw: [UInt8]) -> [UInt8] {
        let r = derInteger(raw[0..<32]), s = derInteger(raw[32..<64])
        // At most 2 × 35 bytes: the lengths fit in one byte.
        return [0x30, UInt8(r.count + s.count)] + r + s
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`: leading zeros dropped, a zero
    /// byte added when the top bit is set.
    private static func derInteger(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var digits = magnitude.drop { $0 == 0 }
        if digits.isEmpty { digits = [0] }
        let content = digits.first! >= 0x80 ? [0] + Array(digits) : Array(digits)
        return [0x02, UInt8(content.count)] + content
    }

    /// The 64-byte r‖s of a DER signature OpenSSL produced.
    static func rawSignature(der: [UInt8]) throws(SignatureError) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw .openSSL(function: "d2i_ECDSA_SIG", reason: OpenSSL.takeErrors(or: "unreadable signature")) }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + 32, 32) == 32
        }
        guard written else { throw .openSSL(function: "BN_bn2binpad", reason: OpenSSL.takeErrors(or: "r or s exceeds 32 bytes")) }
        return raw
    }
}
