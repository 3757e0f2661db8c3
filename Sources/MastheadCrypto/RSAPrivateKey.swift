import COpenSSL

/// An RSA private key that signs with RS256 (``RS256``), read from an unencrypted PKCS #8 PEM
/// (`-----BEGIN PRIVATE KEY-----`, as Google's service account key files hold it).
///
/// Only moduli of 2048 to 8192 bits are accepted. The key may sign on several threads at once.
/// Errors never quote the key's text.
public struct RSAPrivateKey: Sendable {
    let handle: PrivateKeyHandle

    /// Reads the one private key of PEM text.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` when the text is not PEM or holds no
    ///   `PRIVATE KEY` block or several, ``SignatureError/invalidPrivateKey(reason:)`` when OpenSSL
    ///   cannot read it, ``SignatureError/invalidRSAKey(reason:)`` for another kind of key or size.
    public init(pem text: String) throws(SignatureError) {
        let blocks = try PEM.blocks(in: text)
        let keys = blocks.filter { $0.label.hasSuffix("PRIVATE KEY") }
        guard keys.count == 1, let block = keys.first else {
            throw .invalidPEM(reason: keys.isEmpty ? "no -----BEGIN PRIVATE KEY----- block" : "\(keys.count) private keys; expected one")
        }
        guard block.label == "PRIVATE KEY" else {
            throw .invalidPrivateKey(reason: "a \(block.label) block (line \(block.line)); expected PRIVATE KEY (PKCS #8), unencrypted")
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
        handle = PrivateKeyHandle(key)
        guard consumed == block.der.count else {
            throw .invalidPrivateKey(reason: "\(block.label) (line \(block.line)): \(block.der.count - consumed) bytes follow the key")
        }
        try RSAKeySize.check(key)
    }

    /// The key's public half.
    public var publicKey: RSAPublicKey {
        get throws(SignatureError) {
            try RSAPublicKey(modulus: RSAKeySize.parameter("n", of: handle.pointer), exponent: RSAKeySize.parameter("e", of: handle.pointer))
        }
    }
}
