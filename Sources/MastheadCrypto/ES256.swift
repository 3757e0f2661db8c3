import COpenSSL

/// The two encodings of an ECDSA P-256 signature: JWS's raw r‖s (RFC 7518 §3.4) and the DER
/// `ECDSA-Sig-Value` OpenSSL reads and writes (RFC 3279 §2.2.3).
enum ES256 {
    /// The DER `SEQUENCE { r INTEGER, s INTEGER }` of a 64-byte r‖s signature.
    static func derSignature(raw: [UInt8]) -> [UInt8] {
        var der: [UInt8] = [0x30, 0]
        der.reserveCapacity(72)
        appendInteger(raw[0..<32], to: &der)
        appendInteger(raw[32..<64], to: &der)
        // At most 2 × 35 bytes: the length fits in one byte.
        der[1] = UInt8(der.count - 2)
        return der
    }

    /// Appends a DER INTEGER holding the unsigned big-endian `magnitude`: leading zeros dropped,
    /// a zero byte added when the top bit is set.
    private static func appendInteger(_ magnitude: ArraySlice<UInt8>, to der: inout [UInt8]) {
        let digits = magnitude.drop { $0 == 0 }
        guard let first = digits.first else {
            der.append(contentsOf: [0x02, 1, 0])
            return
        }
        let padded = first >= 0x80
        der.append(0x02)
        der.append(UInt8(digits.count + (padded ? 1 : 0)))
        if padded { der.append(0) }
        der.append(contentsOf: digits)
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
