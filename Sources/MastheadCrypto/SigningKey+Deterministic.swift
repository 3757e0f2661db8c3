import COpenSSL

extension SigningKey {
    /// The ES256 signature of `message` with its nonce derived from the key and the message
    /// (RFC 6979 §3.2, HMAC-SHA-256): the same message always gets the same signature, which
    /// verifies like any other. For generated data that must be the same bytes on every run;
    /// OpenSSL 3.0's own signatures draw a random nonce.
    public func deterministicSignature(for message: [UInt8]) throws(SignatureError) -> [UInt8] {
        let digest = try OpenSSL.sha256(message[...])
        guard let group = P256.group, let order = EC_GROUP_get0_order(group) else {
            throw .openSSL(function: "EC_GROUP_new_by_curve_name", reason: OpenSSL.takeErrors(or: "P-256 is not available"))
        }
        guard let context = BN_CTX_new() else { throw .openSSL(function: "BN_CTX_new", reason: OpenSSL.takeErrors(or: "out of memory")) }
        defer { BN_CTX_free(context) }
        var secret: OpaquePointer?
        guard EVP_PKEY_get_bn_param(handle.pointer, "priv", &secret) == 1, let secret else {
            throw .openSSL(function: "EVP_PKEY_get_bn_param", reason: OpenSSL.takeErrors(or: "the private key is not readable"))
        }
        defer { BN_clear_free(secret) }
        let numbers = (0..<5).map { _ in BN_new() }
        defer { numbers.forEach { BN_clear_free($0) } }
        guard let nonce = numbers[0], let x = numbers[1], let r = numbers[2], let s = numbers[3], let e = numbers[4],
            let point = EC_POINT_new(group)
        else { throw .openSSL(function: "BN_new", reason: OpenSSL.takeErrors(or: "out of memory")) }
        defer { EC_POINT_free(point) }

        // h1 reduced mod q (bits2octets; P-256's q and SHA-256 are both 256 bits).
        BN_bin2bn(digest, 32, e)
        var reduced = [UInt8](repeating: 0, count: 32)
        if BN_cmp(e, order) >= 0 {
            BN_sub(x, e, order)
            BN_bn2binpad(x, &reduced, 32)
        } else {
            reduced = digest
        }
        var privateOctets = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(secret, &privateOctets, 32) == 32 else {
            throw .openSSL(function: "BN_bn2binpad", reason: OpenSSL.takeErrors(or: "the private key exceeds 32 bytes"))
        }
        defer { for index in privateOctets.indices { privateOctets[index] = 0 } }
        var nonces = try NonceSequence(secret: privateOctets, hash: reduced)
        while true {
            let candidate = try nonces.next()
            BN_bin2bn(candidate, 32, nonce)
            guard BN_is_zero(nonce) == 0, BN_cmp(nonce, order) < 0 else { continue }
            // r = (kG).x mod q; s = k⁻¹(e + r·d) mod q, the inverse taken in constant time.
            guard EC_POINT_mul(group, point, nonce, nil, nil, context) == 1,
                EC_POINT_get_affine_coordinates(group, point, x, nil, context) == 1,
                BN_nnmod(r, x, order, context) == 1
            else { throw .openSSL(function: "EC_POINT_mul", reason: OpenSSL.takeErrors(or: "cannot multiply the generator")) }
            guard BN_is_zero(r) == 0 else { continue }
            BN_set_flags(nonce, Int32(BN_FLG_CONSTTIME))
            guard BN_mod_inverse(x, nonce, order, context) != nil, BN_mod_mul(s, r, secret, order, context) == 1,
                BN_mod_add(s, s, e, order, context) == 1, BN_mod_mul(s, s, x, order, context) == 1
            else { throw .openSSL(function: "BN_mod_mul", reason: OpenSSL.takeErrors(or: "cannot compute s")) }
            guard BN_is_zero(s) == 0 else { continue }
            var signature = [UInt8](repeating: 0, count: 64)
            let written = signature.withUnsafeMutableBufferPointer { buffer in
                BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
            }
            guard written else { throw .openSSL(function: "BN_bn2binpad", reason: OpenSSL.takeErrors(or: "r or s exceeds 32 bytes")) }
            return signature
        }
    }
}

/// The curve ES256 signs on, made once: OpenSSL precomputes its generator's multiples.
private enum P256 {
    nonisolated(unsafe) static let group: OpaquePointer? = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)
}

/// RFC 6979 §3.2's HMAC_DRBG for one private key and message hash: the candidate nonces, in order.
private struct NonceSequence {
    private var k = [UInt8](repeating: 0, count: 32)
    private var v = [UInt8](repeating: 1, count: 32)
    private var started = false

    /// Steps b–g of §3.2 for the private key's and the reduced hash's 32 bytes each.
    init(secret: [UInt8], hash: [UInt8]) throws(SignatureError) {
        k = try mac(v + [0] + secret + hash)
        v = try mac(v)
        k = try mac(v + [1] + secret + hash)
        v = try mac(v)
    }

    /// The next candidate (step h); each after the first follows step h.3's reseeding.
    mutating func next() throws(SignatureError) -> [UInt8] {
        if started {
            k = try mac(v + [0])
            v = try mac(v)
        }
        started = true
        v = try mac(v)
        return v
    }

    private func mac(_ data: [UInt8]) throws(SignatureError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), k, 32, data, data.count, &output, &length) != nil, length == 32 else {
            throw .openSSL(function: "HMAC", reason: OpenSSL.takeErrors(or: "HMAC-SHA-256 failed"))
        }
        return output
    }
}
