import COpenSSL

/// An elliptic-curve P-256 private key that signs with ES256 (raw r‖s, RFC 7518 §3.4).
///
/// Read from PEM: PKCS#8 (`-----BEGIN PRIVATE KEY-----`, as App Store Connect's `.p8` files hold
/// it) or SEC1 (`-----BEGIN EC PRIVATE KEY-----`). The key may sign on several threads at once.
public struct SigningKey: Sendable {
    let handle: PrivateKeyHandle

    /// Reads the one private key of PEM text.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` when the text is not PEM or holds no key or
    ///   several, ``SignatureError/invalidPrivateKey(reason:)`` when OpenSSL cannot read the key
    ///   (an encrypted key included), ``SignatureError/keyNotP256(found:)`` for another kind of key.
    public init(pem text: String) throws(SignatureError) {
        handle = try PrivateKeyHandle(pem: text, labels: ["PRIVATE KEY", "EC PRIVATE KEY"], expected: "PRIVATE KEY (PKCS#8) or EC PRIVATE KEY (SEC1)")
        try P256PublicKey.requireP256(handle.pointer)
    }

    /// The ES256 signature of `message`: r‖s, 64 bytes, over its SHA-256 digest.
    public func signature(for message: [UInt8]) throws(SignatureError) -> [UInt8] {
        let digest = try OpenSSL.sha256(message[...])
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, handle.pointer, nil) else {
            throw .openSSL(function: "EVP_PKEY_CTX_new_from_pkey", reason: OpenSSL.takeErrors(or: "no context"))
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1 else {
            throw .openSSL(function: "EVP_PKEY_sign_init", reason: OpenSSL.takeErrors(or: "cannot sign with this key"))
        }
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1 else {
            throw .openSSL(function: "EVP_PKEY_sign", reason: OpenSSL.takeErrors(or: "no signature size"))
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &der, &length, digest, digest.count) == 1 else {
            throw .openSSL(function: "EVP_PKEY_sign", reason: OpenSSL.takeErrors(or: "signing failed"))
        }
        return try ES256.rawSignature(der: Array(der.prefix(length)))
    }

    /// Whether `certificate` holds this key's public half.
    public func isKey(of certificate: Certificate) -> Bool {
        guard let publicKey = X509_get0_pubkey(certificate.handle.pointer) else {
            ERR_clear_error()
            return false
        }
        return EVP_PKEY_eq(handle.pointer, publicKey) == 1
    }
}

/// An OpenSSL `EVP_PKEY` holding a private key, freed with its last reference.
///
/// Shared between threads read-only: each signature has its own OpenSSL context.
final class PrivateKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The one private key of PEM `text`, in a block labelled one of `labels` (`expected` names
    /// them in the error), read by OpenSSL with no byte left over.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` when the text is not PEM or holds no
    ///   private key or several, ``SignatureError/invalidPrivateKey(reason:)`` for another label
    ///   or a key OpenSSL cannot read (an encrypted key included).
    convenience init(pem text: String, labels: Set<String>, expected: String) throws(SignatureError) {
        let blocks = try PEM.blocks(in: text)
        let keys = blocks.filter { $0.label.hasSuffix("PRIVATE KEY") }
        guard keys.count == 1, let block = keys.first else {
            throw .invalidPEM(reason: keys.isEmpty ? "no -----BEGIN PRIVATE KEY----- block" : "\(keys.count) private keys; expected one")
        }
        guard labels.contains(block.label) else {
            throw .invalidPrivateKey(reason: "a \(block.label) block (line \(block.line)); expected \(expected), unencrypted")
        }
        var consumed = 0
        let key: OpaquePointer? = block.der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return parsed
        }
        guard let key else {
            throw .invalidPrivateKey(reason: "\(block.label) (line \(block.line)): \(OpenSSL.takeErrors(or: "OpenSSL cannot read it"))")
        }
        guard consumed == block.der.count else {
            EVP_PKEY_free(key)
            throw .invalidPrivateKey(reason: "\(block.label) (line \(block.line)): \(block.der.count - consumed) bytes follow the key")
        }
        self.init(key)
    }

    deinit { EVP_PKEY_free(pointer) }
}
