public import MastheadCrypto
import MastheadJSON

/// The service account Masthead reads purchases as: its key file
/// (`MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE`), as Google Cloud writes one.
///
/// Read: `client_email`, `private_key_id` and `private_key` (an unencrypted PKCS #8 PEM RSA key
/// of 2048 to 8192 bits); `type`, when present, must be `service_account`. Every other field is
/// ignored, `token_uri` included: tokens are asked of `googlePlayTokenURL`. Errors name the field
/// at fault and never quote the key.
public struct GoogleServiceAccount: Sendable {
    /// `client_email`: the account, named in errors and the assertions' `iss`.
    public let clientEmail: String
    /// `private_key_id`: the `kid` of the assertions.
    public let privateKeyId: String
    /// `private_key`: signs the assertions.
    public let privateKey: RSAPrivateKey

    /// The largest key file read (Google's are about 2.4 KB).
    public static let maxKeyFileBytes = 64 << 10

    /// Reads a key file.
    /// - Throws: ``GooglePlayError/invalidServiceAccount(reason:)`` naming what is wrong.
    public init(keyFile: [UInt8]) throws(GooglePlayError) {
        guard keyFile.count <= Self.maxKeyFileBytes else {
            throw .invalidServiceAccount(reason: "\(keyFile.count) bytes; a key file is at most \(Self.maxKeyFileBytes)")
        }
        let document: JSONDocument
        do { document = try JSONDocument(parsing: keyFile, maxDepth: 8) } catch {
            // JSON errors quote no text beyond a member name, and the key is a value.
            throw .invalidServiceAccount(reason: "not JSON: \(error)")
        }
        let root = document.root
        guard root.kind == .object else { throw .invalidServiceAccount(reason: "$ is not a JSON object") }
        if let type = root.member("type") {
            guard type.withStringBytes({ $0.elementsEqual("service_account".utf8) }) == true else { throw .invalidServiceAccount(reason: "$.type is not \"service_account\"") }
        }
        let missing = ["client_email", "private_key_id", "private_key"].filter { name in
            guard let value = root[name], let text = value.string else { return true }
            return text.isEmpty
        }
        guard missing.isEmpty else {
            throw .invalidServiceAccount(reason: "missing or empty (or not a string): " + missing.map { "$.\($0)" }.joined(separator: ", "))
        }
        clientEmail = root.member("client_email")!.string!
        privateKeyId = root.member("private_key_id")!.string!
        do { privateKey = try RSAPrivateKey(pem: root.member("private_key")!.string!) } catch {
            throw .invalidServiceAccount(reason: "$.private_key: \(error)")
        }
    }

    /// Creates an account from its parts.
    public init(clientEmail: String, privateKeyId: String, privateKey: RSAPrivateKey) {
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
    }
}
