import MastheadCrypto
import Testing

/// Compact JWS as the signer writes them: Apple-style `x5c` tokens and `kid` JWTs.
struct JWSSignerTests {
    @Test func signedToken_verifies_andCarriesTheHeaderAndPayload() throws {
        let chain = try Tokens.chain()
        let signer = try JWSSigner(key: Fixtures.leafKey(), certificateChain: chain)
        let payload = Array(Tokens.payload().utf8)
        let verified = try Tokens.verifier().verify(signer.sign(payload), now: Tokens.noClock)
        #expect(verified.payload == payload)
        #expect(verified.header == signer.header)
        #expect(verified.header == JWSHeader(algorithm: "ES256", type: "JWT", certificateChain: chain.map { Base64.encode($0.der, .standard) }))
    }

    @Test func signatures_differEachTime_andAllVerify() throws {
        let signer = try JWSSigner(key: Fixtures.leafKey(), certificateChain: Tokens.chain())
        let first = try signer.sign(Array(Tokens.payload().utf8)), second = try signer.sign(Array(Tokens.payload().utf8))
        #expect(first != second)
        _ = try Tokens.verifier().verify(second, now: Tokens.noClock)
    }

    @Test func jwtHeader_namesTheKeyAndType_withoutAChain() throws {
        let signer = try JWSSigner(key: Fixtures.leafKey(), keyId: "2X9R4HXF34", type: "JWT")
        let token = try signer.sign(Array("{\"iss\":\"57246542-96fe-1a63-e053-0824d011072a\"}".utf8))
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(String(decoding: try Base64.decode(parts[0], .url), as: UTF8.self) == "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"kid\":\"2X9R4HXF34\"}")
        try Fixtures.certificate("leaf.der").verifyES256(signature: Base64.decode(parts[2], .url), over: Array((parts[0] + "." + parts[1]).utf8))
    }

    @Test func signer_refusesAChainWhoseLeafIsNotItsKey() throws {
        let error = Tokens.refusal {
            try JWSSigner(key: SigningKey(pem: Fixtures.text("other-key.pem")), certificateChain: Tokens.chain())
        }
        #expect(error == .invalidPrivateKey(reason: "it is not the key of the chain's leaf certificate (CN=Masthead Test Signing,O=Masthead tests)"))
    }
}
