import MastheadCrypto
import Testing

/// ES256 signatures with RFC 6979 nonces: the RFC's own P-256 vectors, and tokens that are the
/// same bytes every time yet verify like random-nonce ones.
struct DeterministicSignatureTests {
    /// RFC 6979 A.2.5's P-256 private key (x = C9AFA9D8…0F6721), SEC1.
    static let rfcKey = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIMmvqdhFunUWa1whV2ex1pNOUMPbNuibEnuKYisSD2choAoGCCqGSM49
        AwEHoUQDQgAEYP7UuiVanTHJYet0xjVtaMBJuJI7Yfps5mliLmDyn7Z5A/4QCLi8
        maQa6elWKLxk8vGyDC1+n1F3o8KU1EYimQ==
        -----END EC PRIVATE KEY-----
        """

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16, uppercase: true).leftPadded }.joined() }

    /// RFC 6979 A.2.5, SHA-256, with the messages "sample" and "test": r‖s as the RFC gives them.
    @Test(arguments: [
        ("sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"),
        ("test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"),
    ])
    func deterministicSignature_matchesRFC6979Vectors(message: String, expected: String) throws {
        let key = try SigningKey(pem: Self.rfcKey)
        #expect(Self.hex(try key.deterministicSignature(for: Array(message.utf8))) == expected)
    }

    @Test func deterministicSigner_givesTheSameTokenEveryTime_andItVerifies() throws {
        let chain = try ["leaf.der", "intermediate.der", "root.der"].map(Fixtures.certificate)
        let signer = try JWSSigner(key: Fixtures.leafKey(), certificateChain: chain, deterministic: true)
        let payload = Array(#"{"signedDate":1593648000000,"transactionId":"1"}"#.utf8)
        let token = try signer.sign(payload)
        #expect(try signer.sign(payload) == token)
        #expect(try signer.sign(Array(#"{"signedDate":1593648000000,"transactionId":"2"}"#.utf8)) != token)
        let verifier = try JWSVerifier(rootCertificates: [chain[2]])
        #expect(try verifier.verify(token, now: { 0 }).payload == payload)
        // Random nonces: another signature of the same payload, which verifies too.
        let random = try JWSSigner(key: Fixtures.leafKey(), certificateChain: chain)
        let other = try random.sign(payload)
        #expect(other != token)
        #expect(try verifier.verify(other, now: { 0 }).payload == payload)
    }
}

extension String {
    /// Two hex digits.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
