import COpenSSL

/// SHA-256 part-way: the state after the whole 64-byte blocks of some leading bytes, which
/// messages beginning with those bytes continue from instead of hashing them again.
///
/// Tokens one signer makes share their header, most of their signed bytes: the verifier hashes
/// it once per header. Read-only once made, so any number of threads continue from it at once.
final class SHA256Prefix: @unchecked Sendable {
    /// The number of leading bytes absorbed: a multiple of 64.
    let length: Int
    private let state: OpaquePointer

    /// The state after the whole 64-byte blocks of `bytes`.
    init(_ bytes: ArraySlice<UInt8>) throws(SignatureError) {
        length = bytes.count / 64 * 64
        guard let digest = OpenSSL.sha256Digest, let state = EVP_MD_CTX_new() else {
            throw .openSSL(function: "EVP_MD_CTX_new", reason: OpenSSL.takeErrors(or: "SHA256 is not available"))
        }
        self.state = state
        let absorbed = bytes.withUnsafeBytes { buffer in
            EVP_DigestInit_ex(state, digest, nil) == 1 && EVP_DigestUpdate(state, buffer.baseAddress, length) == 1
        }
        guard absorbed else { throw .openSSL(function: "EVP_DigestUpdate", reason: OpenSSL.takeErrors(or: "SHA-256 failed")) }
    }

    deinit { EVP_MD_CTX_free(state) }

    /// The SHA-256 digest of a message that begins with the prefix's bytes and goes on with the
    /// bytes `rest` points at.
    func digest(continuingWith rest: UnsafeRawBufferPointer) throws(SignatureError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(function: "EVP_MD_CTX_new", reason: OpenSSL.takeErrors(or: "out of memory")) }
        defer { EVP_MD_CTX_free(context) }
        var length: UInt32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: 32) { buffer, initialized in
            let finished =
                EVP_MD_CTX_copy_ex(context, state) == 1 && EVP_DigestUpdate(context, rest.baseAddress, rest.count) == 1
                && EVP_DigestFinal_ex(context, buffer.baseAddress, &length) == 1
            initialized = finished && length == 32 ? 32 : 0
        }
        guard output.count == 32 else { throw .openSSL(function: "EVP_DigestFinal_ex", reason: OpenSSL.takeErrors(or: "SHA-256 failed")) }
        return output
    }
}
