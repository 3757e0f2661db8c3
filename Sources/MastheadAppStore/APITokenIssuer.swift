import MastheadCrypto
import MastheadJSON
import Synchronization

/// Signs the App Store Server API's bearer tokens and reuses one until it is near its expiry.
///
/// A token is an ES256 JWS with the header `{"alg":"ES256","typ":"JWT","kid":…}` and the claims
/// `iss` (issuer id), `iat`, `exp` (``lifetimeSeconds`` after `iat`; Apple refuses more than 60
/// minutes), `aud` `appstoreconnect-v1` and `bid` (the bundle id). A new one is signed once fewer
/// than ``renewalMarginSeconds`` are left. Safe to use from several threads.
final class APITokenIssuer: Sendable {
    /// How long a token is valid.
    static let lifetimeSeconds: Int64 = 20 * 60
    /// A token with less than this left is not used again.
    static let renewalMarginSeconds: Int64 = 5 * 60

    let credentials: AppStoreCredentials
    let bundleId: String
    private let signer: JWSSigner
    private let now: @Sendable () -> Int64
    private let current = Mutex<(token: String, expires: Int64)?>(nil)

    /// - Parameter now: the time, in milliseconds since 1970.
    init(credentials: AppStoreCredentials, bundleId: String, now: @escaping @Sendable () -> Int64) throws(AppStoreError) {
        self.credentials = credentials
        self.bundleId = bundleId
        self.now = now
        do { signer = try JWSSigner(key: credentials.key, keyId: credentials.keyId, type: "JWT") } catch {
            throw .invalidCredentials("key \(credentials.keyId) cannot sign: \(error)")
        }
    }

    /// A token valid for at least ``renewalMarginSeconds`` more.
    func token() throws(AppStoreError) -> String {
        let seconds = now() / 1000
        let result: Result<String, AppStoreError> = current.withLock { current in
            if let current, current.expires - seconds > Self.renewalMarginSeconds { return .success(current.token) }
            let expires = seconds + Self.lifetimeSeconds
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("iss", credentials.issuerId)
            writer.field("iat", seconds)
            writer.field("exp", expires)
            writer.field("aud", "appstoreconnect-v1")
            writer.field("bid", bundleId)
            writer.endObject()
            do {
                let token = try signer.sign(writer.bytes)
                current = (token, expires)
                return .success(token)
            } catch {
                return .failure(.invalidCredentials("key \(credentials.keyId) cannot sign: \(error)"))
            }
        }
        return try result.get()
    }

    /// Drops `token` when it is the one in use (Apple refused it): the next request signs a new one.
    func discard(_ token: String) {
        current.withLock { current in
            if current?.token == token { current = nil }
        }
    }
}
