import Foundation
import MastheadCrypto

/// The In-App Purchase key that signs the App Store Server API's tokens: its key id, the team's
/// issuer id, and the private key (a `.p8` file's PKCS#8 PEM).
///
/// The key is never written anywhere: ``description`` names the key id and issuer id only, and
/// every error names the key id or the file, never the key's bytes.
public struct AppStoreCredentials: Sendable, CustomStringConvertible {
    /// The key's id in App Store Connect (the JWT header's `kid`).
    public let keyId: String
    /// The team's issuer id in App Store Connect (the JWT's `iss`).
    public let issuerId: String
    /// The private key.
    let key: SigningKey

    /// Reads the private key of PEM text.
    ///
    /// Text holding no line break but the two characters `\n` (a PEM stored as one line, as
    /// `.env` files and secret managers often keep it) is read with each `\n` taken as a line break.
    /// - Throws: ``AppStoreError/invalidCredentials(_:)`` when an id is empty or the text holds no
    ///   usable P-256 private key (the error names `keySource`, never the text).
    public init(keyId: String, issuerId: String, privateKeyPEM: String, keySource: String = "the private key") throws(AppStoreError) {
        guard !keyId.isEmpty else { throw .invalidCredentials("the key id is empty") }
        guard !issuerId.isEmpty else { throw .invalidCredentials("the issuer id is empty") }
        self.keyId = keyId
        self.issuerId = issuerId
        let pem = privateKeyPEM.utf8.contains(0x0A) ? privateKeyPEM : privateKeyPEM.replacingOccurrences(of: "\\n", with: "\n")
        do { key = try SigningKey(pem: pem) } catch {
            throw .invalidCredentials("\(keySource) of key \(keyId) is not a P-256 private key in PEM (a .p8 file): \(error)")
        }
    }

    /// Reads the private key from a `.p8` file.
    /// - Throws: ``AppStoreError/invalidCredentials(_:)`` naming the file when it cannot be read or holds no usable key.
    public init(keyId: String, issuerId: String, privateKeyFile path: String) throws(AppStoreError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .invalidCredentials("cannot read the private key file \(path) of key \(keyId): \(error.localizedDescription)")
        }
        try self.init(keyId: keyId, issuerId: issuerId, privateKeyPEM: text, keySource: "the private key file \(path)")
    }

    public var description: String { "App Store Server API key \(keyId) (issuer \(issuerId))" }
}
