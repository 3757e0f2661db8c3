import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`, RFC 7518 §3.3): nothing else, neither PSS nor
/// another digest.
public enum RS256 {
    /// The signature of `message` with `key`: as many bytes as the key's modulus.
    /// - Throws: ``SignatureError/openSSL(function:reason:)`` when OpenSSL fails.
    public static func sign(_ message: [UInt8], with key: RSAPrivateKey) throws(SignatureError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(function: "EVP_MD_CTX_new", reason: OpenSSL.takeErrors(or: "no memory")) }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit_ex(context, &keyContext, "SHA256", nil, nil, key.handle.pointer, nil) == 1,
            EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1
        else { throw .openSSL(function: "EVP_DigestSignInit_ex", reason: OpenSSL.takeErrors(or: "cannot sign with this key")) }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw .openSSL(function: "EVP_DigestSign", reason: OpenSSL.takeErrors(or: "no signature size"))
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw .openSSL(function: "EVP_DigestSign", reason: OpenSSL.takeErrors(or: "signing failed"))
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is `key`'s RS256 signature of `message`. A signature of another length
    /// than the modulus is refused before any arithmetic.
    public static func verify(_ signature: [UInt8], of message: [UInt8], with key: RSAPublicKey) -> Bool {
        guard signature.count == (key.bits + 7) / 8, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit_ex(context, &keyContext, "SHA256", nil, nil, key.handle.pointer, nil) == 1,
            EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1
        else {
            ERR_clear_error()
            return false
        }
        let verified = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        if !verified { ERR_clear_error() }
        return verified
    }
}
