import MastheadCrypto
import Testing

/// Compact JWS made by hand, so that tests can sign headers the signer would refuse to write.
enum Tokens {
    /// `header.payload.signature` with the header and payload JSON given as text, signed by `key`
    /// (or with an empty signature without one).
    static func forge(header: String, payload: String, key: SigningKey?) throws -> String {
        let input = Base64.encode(Array(header.utf8), .url) + "." + Base64.encode(Array(payload.utf8), .url)
        guard let key else { return input + "." }
        return input + "." + Base64.encode(try key.signature(for: Array(input.utf8)), .url)
    }

    /// A header naming `alg` and the base64 DER of `chain`.
    static func header(alg: String = "ES256", chain: [Certificate]) -> String {
        let entries = chain.map { "\"" + Base64.encode($0.der, .standard) + "\"" }.joined(separator: ",")
        return "{\"alg\":\"\(alg)\",\"typ\":\"JWT\",\"x5c\":[\(entries)]}"
    }

    /// A payload with a `signedDate` (milliseconds).
    static func payload(signedDate: Int64 = Fixtures.signedDate2020) -> String {
        "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":\(signedDate)}"
    }

    /// The test chain: leaf, intermediate, root.
    static func chain(leaf: String = "leaf.der", intermediate: String = "intermediate.der", root: String = "root.der") throws -> [Certificate] {
        [try Fixtures.certificate(leaf), try Fixtures.certificate(intermediate), try Fixtures.certificate(root)]
    }

    /// A token signed by the test leaf's key over `chain` with `payload`.
    static func signed(chain: [Certificate], payload: String = Tokens.payload(), key: SigningKey? = nil) throws -> String {
        try forge(header: header(chain: chain), payload: payload, key: key ?? Fixtures.leafKey())
    }

    /// The same token with one byte of its decoded signature flipped.
    static func flippingSignatureByte(_ token: String, at index: Int = 10) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var signature = try Base64.decode(parts[2], .url)
        signature[index] ^= 0x01
        return parts[0] + "." + parts[1] + "." + Base64.encode(signature, .url)
    }

    /// A verifier trusting the test chain's root.
    static func verifier(cacheCapacity: Int = JWSVerifier.defaultCacheCapacity) throws -> JWSVerifier {
        try JWSVerifier(rootCertificates: [Fixtures.certificate("root.der")], cacheCapacity: cacheCapacity)
    }

    /// A clock that must not be read: the payloads under test carry their `signedDate`.
    static func noClock() -> Int64 {
        Issue.record("the verifier asked for the time of a token that has a signedDate")
        return 0
    }

    /// The ``SignatureError`` `body` throws, or `nil` when it returns (any other error is an issue).
    static func refusal<T>(_ body: () throws -> T) -> SignatureError? {
        do {
            _ = try body()
            return nil
        } catch let error as SignatureError {
            return error
        } catch {
            Issue.record("not a SignatureError: \(error)")
            return nil
        }
    }
}
