import MastheadCrypto
import MastheadTestSupport

/// Pub/Sub push tokens for the tests: Google's claims, with any of them changed, removed or added
/// as raw JSON.
enum PushTokens {
    static let header = #"{"alg":"RS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)","typ":"JWT"}"#

    /// The claims a Pub/Sub push token carries, each as raw JSON, in Google's order.
    static func claims() -> [(String, String)] {
        [
            ("aud", quoted(PubSubPushVerifierTests.audience)), ("azp", #""112233445566778899000""#), ("email", quoted(PubSubPushVerifierTests.pushAccount)),
            ("email_verified", "true"), ("exp", "\(PubSubPushVerifierTests.issued + 3600)"), ("iat", "\(PubSubPushVerifierTests.issued)"),
            ("iss", #""https://accounts.google.com""#), ("sub", #""112233445566778899000""#),
        ]
    }

    /// The payload text of `claims`, with `changes` applied: a value replaces the claim's (or is
    /// added at the end), nil removes it.
    static func payload(_ changes: [(String, String?)] = []) -> String {
        var claims = claims()
        for (name, value) in changes {
            if let index = claims.firstIndex(where: { $0.0 == name }) {
                if let value { claims[index].1 = value } else { claims.remove(at: index) }
            } else if let value {
                claims.append((name, value))
            }
        }
        return "{" + claims.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A token of `header` and the payload with `changes`, signed with the OIDC signer: the value
    /// of an `Authorization` header field.
    static func bearer(header: String = header, _ changes: [(String, String?)] = []) throws -> String {
        "Bearer " + (try GooglePlayTestKeys.rs256(header: header, payload: payload(changes), key: GooglePlayTestKeys.oidcSigner()))
    }

    static func quoted(_ text: String) -> String { "\"" + text + "\"" }

    static func base64url(_ text: String) -> String { Base64.encode(Array(text.utf8), .url) }
}
