import COpenSSL

/// An RSA private key of the test fixtures, signing and verifying RS256 (PKCS #1 v1.5, SHA-256)
/// with OpenSSL directly: the fakes' own implementation, independent of Masthead's.
final class TestRSAKey: @unchecked Sendable {
    /// OpenSSL's key; only read after `init`, which OpenSSL allows from several threads.
    private let key: OpaquePointer

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the one private key of PEM text.
    init(pem: String) throws {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw Failure(description: "not a PEM private key") }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The modulus and public exponent, big-endian bytes (a JWK's `n` and `e`).
    func publicComponents() throws -> (modulus: [UInt8], exponent: [UInt8]) {
        func component(_ name: String) throws -> [UInt8] {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { throw Failure(description: "not an RSA key") }
            defer { BN_free(number) }
            var out = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
            _ = BN_bn2bin(number, &out)
            return out
        }
        return (try component("n"), try component("e"))
    }

    /// The RS256 signature of `message`.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw Failure(description: "no digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw Failure(description: "EVP_DigestSignInit failed") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw Failure(description: "EVP_DigestSign failed") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw Failure(description: "EVP_DigestSign failed") }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is this key's RS256 signature of `message`.
    func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let verified = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return verified
    }
}
