/// SHA-256, through OpenSSL.
public enum SHA256 {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) throws(SignatureError) -> [UInt8] {
        try OpenSSL.sha256(bytes[...])
    }
}
