import Foundation
import MastheadJSON
import MastheadTestSupport
import Synchronization
import Testing

/// The fake Google the Google Play tests run against refuses what Google refuses: an API call
/// without an access token it gave, a grant that is not a signed JWT-bearer assertion; and it
/// pages voided purchases.
struct FakeGooglePlayTests {
    static let package = "com.example.magazine"

    @Test func apiCall_withoutAnAccessTokenItGave_is401() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        let client = try TestClient(port: UInt16(URLComponents(string: fake.apiURL)!.port!))
        let path = "/androidpublisher/v3/applications/\(Self.package)/purchases/subscriptionsv2/tokens/t1"
        #expect(client.request("GET", path)?.status == 401)
        #expect(client.request("GET", path, headers: ["Authorization": "Bearer ya29.made-up"])?.status == 401)
        #expect(fake.seen(.subscription).map(\.refusal) == ["no bearer token", "unknown access token"])
    }

    @Test func tokenEndpoint_refusesAnythingButASignedJWTBearerAssertion() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        let client = try TestClient(port: UInt16(URLComponents(string: fake.apiURL)!.port!))
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        // A push token is an RS256 JWT too, but signed by another key, for another audience.
        let assertion = try fake.mint(.init(audience: fake.tokenURL))
        let cases = [
            "grant_type=client_credentials&assertion=\(assertion)", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer",
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
        ]
        for body in cases {
            let answer = client.request("POST", "/token", headers: form, body: Array(body.utf8))
            #expect(answer?.status == 400, "\(body)")
            #expect(answer?.body.contains("invalid_grant") == true)
        }
        #expect(fake.seen(.token).map(\.refusal) == ["grant_type is not jwt-bearer", "no assertion", "kid is not the key file's private_key_id"])
        #expect(fake.state.withLock { $0.accessTokens.isEmpty })
    }

    @Test func jwks_publishesTheSigningKey_byItsKid() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        let client = try TestClient(port: UInt16(URLComponents(string: fake.apiURL)!.port!))
        let answer = try #require(client.request("GET", "/oauth2/v3/certs"))
        let keys = try #require(JSONDocument(parsing: Array(answer.body.utf8)).root["keys"])
        let key = try #require(Array(keys.elements).first)
        #expect(key["kid"]?.string == FakeGooglePlay.signingKeyId)
        #expect(key["kty"]?.string == "RSA")
        #expect(key["e"]?.string == "AQAB")
        #expect((key["n"]?.string?.count ?? 0) >= 342)
    }
}
