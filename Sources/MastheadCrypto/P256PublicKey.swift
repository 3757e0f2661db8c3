import COpenSSL
import Synchronization

/// A certificate's elliptic-curve P-256 public key, verifying ES256 signatures (RFC 7518 §3.4).
///
/// The key belongs to its certificate's `X509`, which this object keeps alive. Verifications may
/// run on several threads at once: each takes a verification context of its own from a small
/// pool (creating one costs OpenSSL 3 about a tenth of a verification) and gives it back.
final class P256PublicKey: @unchecked Sendable {
    let key: OpaquePointer
    let owner: X509Handle
    /// Initialised `EVP_PKEY_CTX`s for `key`, not in use.
    private let idleContexts = Mutex<[VerificationContext]>([])
    /// How many idle contexts are kept: one per thread that verifies at once, with room to spare.
    static let maximumIdleContexts = 16

    /// Wraps the key of the certificate `owner`, which must be P-256 (``requireP256(_:)``).
    init(key: OpaquePointer, owner: X509Handle) {
        self.key = key
        self.owner = owner
    }

    deinit {
        for context in idleContexts.withLock({ $0 }) { EVP_PKEY_CTX_free(context.pointer) }
    }

    /// Checks that `key` is an EC key on P-256 (`prime256v1`).
    /// - Throws: ``SignatureError/keyNotP256(found:)`` naming the key's type or curve.
    static func requireP256(_ key: OpaquePointer) throws(SignatureError) {
        let type = EVP_PKEY_get_base_id(key)
        guard type == EVP_PKEY_EC else {
            let name = OBJ_nid2sn(type).map { String(cString: $0) } ?? "type \(type)"
            throw .keyNotP256(found: "a \(name) key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1, length < name.count else {
            throw .keyNotP256(found: "an EC key without a named curve (\(OpenSSL.takeErrors(or: "no group name")))")
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" else { throw .keyNotP256(found: "an EC key on \(curve)") }
    }

    /// Verifies an ES256 signature: `signature` is r‖s (32 bytes each, big-endian) over the
    /// SHA-256 digest of `message`.
    /// - Throws: ``SignatureError/invalidSignature(reason:)`` when it is not 64 bytes or does not verify.
    func verify(signature: [UInt8], message: ArraySlice<UInt8>) throws(SignatureError) {
        try verify(signature: signature, digest: OpenSSL.sha256(message))
    }

    /// Verifies an ES256 signature over the message whose SHA-256 digest is `digest`.
    /// - Throws: ``SignatureError/invalidSignature(reason:)`` when it is not 64 bytes or does not verify.
    func verify(signature: [UInt8], digest: [UInt8]) throws(SignatureError) {
        guard signature.count == 64 else {
            throw .invalidSignature(reason: "it is \(signature.count) bytes; an ES256 signature is 64 (r‖s)")
        }
        let der = ES256.derSignature(raw: signature)
        let context = try takeContext()
        let result = EVP_PKEY_verify(context, der, der.count, digest, digest.count)
        if result >= 0 {
            giveBack(context)
        } else {
            EVP_PKEY_CTX_free(context)
        }
        guard result == 1 else {
            ERR_clear_error()
            throw .invalidSignature(reason: "it does not verify with the leaf certificate's key over the token's header and payload")
        }
    }

    /// An idle verification context, or a new one.
    private func takeContext() throws(SignatureError) -> OpaquePointer {
        if let context = idleContexts.withLock({ $0.popLast() }) { return context.pointer }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw .openSSL(function: "EVP_PKEY_CTX_new_from_pkey", reason: OpenSSL.takeErrors(or: "no context"))
        }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw .openSSL(function: "EVP_PKEY_verify_init", reason: OpenSSL.takeErrors(or: "cannot verify with this key"))
        }
        return context
    }

    /// Keeps `context` for the next verification, or frees it when enough are idle.
    private func giveBack(_ context: OpaquePointer) {
        let kept = idleContexts.withLock { contexts in
            guard contexts.count < P256PublicKey.maximumIdleContexts else { return false }
            contexts.append(VerificationContext(pointer: context))
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }
}

extension Certificate {
    /// Verifies an ES256 signature (raw r‖s, 64 bytes) over `message` with this certificate's
    /// P-256 public key.
    /// - Throws: ``SignatureError/keyNotP256(found:)`` when the key is of another kind,
    ///   ``SignatureError/invalidSignature(reason:)`` when the signature is not 64 bytes or does not verify.
    public func verifyES256(signature: [UInt8], over message: [UInt8]) throws(SignatureError) {
        try p256PublicKey().verify(signature: signature, message: message[...])
    }
}

/// An idle `EVP_PKEY_CTX`, handed from the thread that last used it to the next.
private struct VerificationContext: @unchecked Sendable {
    let pointer: OpaquePointer
}
