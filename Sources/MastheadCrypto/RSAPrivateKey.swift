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
        handle = try PrivateKeyHandle(pem: text, labels: ["PRIVATE KEY"], expected: "PRIVATE KEY (PKCS #8)")
        try RSAKeySize.check(handle.pointer)
    }

    /// The key's public half.
    public var publicKey: RSAPublicKey {
        get throws(SignatureError) {
            try RSAPublicKey(modulus: RSAKeySize.parameter("n", of: handle.pointer), exponent: RSAKeySize.parameter("e", of: handle.pointer))
        }
    }
}
