/// Why bytes are not PKCS #7 signed data with content (``PKCS7/signedContent(der:)``).
public struct PKCS7Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the offset or OpenSSL's reason where there is one.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "not PKCS #7 signed data: \(reason)" }
}
