@testable import MastheadCrypto
import Testing

/// The header cache: a header met again is not decoded, parsed or hashed again, and nothing a
/// token is judged by changes because of it.
struct HeaderCacheTests {
    /// Tokens that share the good token's header, each changed elsewhere.
    static func sameHeader(as good: String) throws -> [String] {
        let parts = good.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let header = parts[0]
        let otherPayload = Base64.encode(Array(Tokens.payload(signedDate: 1_600_000_000_000).utf8), .url)
        return [
            good,
            try Tokens.flippingSignatureByte(good),
            header + "." + otherPayload + "." + parts[2],  // an edited payload under the old signature
            header + "." + Base64.encode(Array("[1]".utf8), .url) + "." + parts[2],
            header + "." + Base64.encode(Array(#"{"signedDate":"soon"}"#.utf8), .url) + "." + parts[2],
            header + ".%%%." + parts[2],
            header + "." + parts[1] + ".",
            header + "." + parts[1],
            // Signed, but in 2045-06-01, after the leaf expired: the chain is judged at each token's date.
            try Tokens.signed(chain: Tokens.chain(), payload: Tokens.payload(signedDate: 2_379_888_000_000)),
            try Tokens.signed(chain: Tokens.chain(), payload: Tokens.payload(signedDate: 1_700_000_000_000)),
        ]
    }

    @Test func headerMetAgain_givesTheSameOutcomeAsAVerifierWithoutCaches() throws {
        let cached = try Tokens.verifier()
        let uncached = try Tokens.verifier(cacheCapacity: 0)
        let good = try Tokens.signed(chain: Tokens.chain())
        _ = try cached.verify(good, now: Tokens.noClock)
        #expect(cached.cachedHeaders == 1)
        for (index, token) in try Self.sameHeader(as: good).enumerated() {
            let fromCache = Tokens.refusal { try cached.verify(token, now: { 0 }) }
            let fresh = Tokens.refusal { try uncached.verify(token, now: { 0 }) }
            #expect(fromCache == fresh, "token \(index)")
        }
        #expect(cached.cachedHeaders == 1)
        #expect(uncached.cachedHeaders == 0)
        #expect(Tokens.refusal { try cached.verify(Tokens.flippingSignatureByte(good), now: Tokens.noClock) } != nil)
    }

    @Test func refusedHeaders_areNotCached_andTheCacheHoldsAtMostItsCapacity() throws {
        let verifier = try Tokens.verifier(cacheCapacity: 1)
        let unsigned = try Tokens.forge(header: Tokens.header(alg: "none", chain: Tokens.chain()), payload: Tokens.payload(), key: nil)
        #expect(Tokens.refusal { try verifier.verify(unsigned, now: Tokens.noClock) } == .unsupportedAlgorithm("none"))
        let twoCertificates = try Tokens.signed(chain: Array(Tokens.chain().prefix(2)))
        #expect(Tokens.refusal { try verifier.verify(twoCertificates, now: Tokens.noClock) } == .wrongChainLength(count: 2))
        #expect(verifier.cachedHeaders == 0)
        _ = try verifier.verify(Tokens.signed(chain: Tokens.chain()), now: Tokens.noClock)
        // The same chain under a header without typ: another header text.
        let entries = try Tokens.chain().map { "\"" + Base64.encode($0.der, .standard) + "\"" }.joined(separator: ",")
        let otherHeader = try Tokens.forge(header: "{\"alg\":\"ES256\",\"x5c\":[\(entries)]}", payload: Tokens.payload(), key: Fixtures.leafKey())
        _ = try verifier.verify(otherHeader, now: Tokens.noClock)
        #expect(verifier.cachedHeaders == 1)
    }

    /// SHA-256 continued from a header's whole blocks equals SHA-256 of the whole message.
    @Test(arguments: [0, 1, 63, 64, 65, 127, 128, 2_700])
    func digestPrefix_continuesToTheDigestOfTheWholeMessage(prefix: Int) throws {
        let message = (0..<(prefix + 300)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let state = try SHA256Prefix(message[..<prefix])
        #expect(state.length == prefix / 64 * 64)
        #expect(try Self.digest(state, continuingWith: message[state.length...]) == OpenSSL.sha256(message[...]))
        #expect(try Self.digest(state, continuingWith: message[state.length..<prefix]) == OpenSSL.sha256(message[..<prefix]))
    }

    /// The digest `state` gives continued with the bytes of `rest`.
    static func digest(_ state: SHA256Prefix, continuingWith rest: ArraySlice<UInt8>) throws -> [UInt8] {
        try rest.withUnsafeBytes { input in try state.digest(continuingWith: input) }
    }
}
