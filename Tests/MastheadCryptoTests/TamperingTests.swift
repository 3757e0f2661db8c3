import Foundation
import MastheadCrypto
import Testing

/// Tokens of the project's test chain, tampered with one way each: each is refused with its own reason.
struct TamperingTests {
    @Test func untamperedToken_verifies() throws {
        let chain = try Tokens.chain()
        let verified = try Tokens.verifier().verify(Tokens.signed(chain: chain), now: Tokens.noClock)
        #expect(verified.signedDate == Fixtures.signedDate2020)
        #expect(verified.leaf == chain[0])
        #expect(verified.header.certificateChain == chain.map { Base64.encode($0.der, .standard) })
        #expect(String(decoding: verified.payload, as: UTF8.self) == Tokens.payload())
    }

    @Test func flippedSignatureByte_isAnInvalidSignature() throws {
        let token = try Tokens.flippingSignatureByte(Tokens.signed(chain: Tokens.chain()))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .invalidSignature(reason: "it does not verify with the leaf certificate's key over the token's header and payload"))
    }

    @Test func editedPayload_isAnInvalidSignature() throws {
        let parts = try Tokens.signed(chain: Tokens.chain()).split(separator: ".").map(String.init)
        let edited = Base64.encode(Array(Tokens.payload().replacingOccurrences(of: "com.example", with: "com.exampla").utf8), .url)
        let error = Tokens.refusal { try Tokens.verifier().verify(parts[0] + "." + edited + "." + parts[2], now: Tokens.noClock) }
        #expect(error == .invalidSignature(reason: "it does not verify with the leaf certificate's key over the token's header and payload"))
    }

    @Test func algNone_isAnUnsupportedAlgorithm() throws {
        let token = try Tokens.forge(header: Tokens.header(alg: "none", chain: Tokens.chain()), payload: Tokens.payload(), key: nil)
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .unsupportedAlgorithm("none"))
    }

    @Test(arguments: ["ES384", "HS256", "RS256", "es256", "ES256 "])
    func anotherAlg_isAnUnsupportedAlgorithm(alg: String) throws {
        let token = try Tokens.forge(header: Tokens.header(alg: alg, chain: Tokens.chain()), payload: Tokens.payload(), key: Fixtures.leafKey())
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .unsupportedAlgorithm(alg))
    }

    @Test(arguments: [0, 1, 2, 4])
    func chainOfOtherThanThreeCertificates_isTheWrongLength(count: Int) throws {
        let chain = try Tokens.chain()
        let certificates = (0..<count).map { chain[min($0, 2)] }
        let token = try Tokens.forge(header: Tokens.header(chain: certificates), payload: Tokens.payload(), key: Fixtures.leafKey())
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .wrongChainLength(count: count))
    }

    @Test func signedByAnotherKey_isAnInvalidSignature() throws {
        let token = try Tokens.signed(chain: Tokens.chain(), key: SigningKey(pem: Fixtures.text("other-key.pem")))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .invalidSignature(reason: "it does not verify with the leaf certificate's key over the token's header and payload"))
    }

    @Test func leafExpiredAtTheSignedDate_isExpired() throws {
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-expired.der"))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(
            error
                == .certificateExpired(
                    .leaf, subject: "CN=Masthead Test Signing (expired),O=Masthead tests", notAfter: 1_546_300_800_000, at: Fixtures.signedDate2020))
        #expect(error?.description == "the leaf certificate (CN=Masthead Test Signing (expired),O=Masthead tests) expired at 2019-01-01T00:00:00Z; judged at 2020-07-02T00:00:00Z")
    }

    @Test func leafNotYetValidAtTheSignedDate_isNotYetValid() throws {
        let token = try Tokens.signed(chain: Tokens.chain(), payload: Tokens.payload(signedDate: 1_433_116_800_000))  // 2015-06-01
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(
            error == .certificateNotYetValid(.leaf, subject: "CN=Masthead Test Signing,O=Masthead tests", notBefore: 1_451_606_400_000, at: 1_433_116_800_000))
    }

    @Test func leafWithoutTheOID_isMissingTheLeafOID() throws {
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-without-oid.der"))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .missingLeafOID(JWSVerifier.appleLeafOID, subject: "CN=Masthead Test Signing without OID,O=Masthead tests"))
    }

    @Test func intermediateWithoutTheOID_isMissingTheIntermediateOID() throws {
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-under-intermediate-without-oid.der", intermediate: "intermediate-without-oid.der"))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(
            error == .missingIntermediateOID(JWSVerifier.appleIntermediateOID, subject: "CN=Masthead Test Intermediate CA without OID,O=Masthead tests"))
    }

    @Test func chainToASelfMadeRoot_isUntrusted() throws {
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "other-leaf.der", intermediate: "other-intermediate.der", root: "other-root.der"))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(
            error
                == .untrustedChain(
                    reason: "unable to get local issuer certificate (OpenSSL error 20, at the intermediate certificate CN=Masthead Test Other Intermediate CA,O=Masthead tests)"))
    }

    @Test(arguments: ["intermediate.der", "root.der"])
    func leafIssuedByTheRootItself_isUntrusted_whateverTheIntermediate(intermediate: String) throws {
        // OpenSSL builds leaf → root and ignores x5c[1]; Apple's chains have exactly three certificates.
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-under-root.der", intermediate: intermediate))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .untrustedChain(reason: "OpenSSL built a chain of 2 certificates that is not leaf → x5c intermediate → configured root"))
    }

    @Test func tokensOwnRoot_isNeverTrusted_norUsed() throws {
        // A self-made root in x5c[2] changes nothing: the configured root decides.
        let token = try Tokens.signed(chain: Tokens.chain(root: "other-root.der"))
        #expect(try Tokens.verifier().verify(token, now: Tokens.noClock).signedDate == Fixtures.signedDate2020)
    }

    @Test func leafWithAP384Key_isNotP256() throws {
        let token = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-p384.der"))
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .keyNotP256(found: "an EC key on secp384r1"))
    }

    @Test func certificatesThatDoNotDecode_areNamedByIndex() throws {
        let chain = try Tokens.chain()
        let root = Base64.encode(chain[2].der, .standard)
        let intermediate = Base64.encode(chain[1].der, .standard)
        let notBase64 = "{\"alg\":\"ES256\",\"x5c\":[\"\(Base64.encode(chain[0].der, .standard))\",\"MIIB-x\",\"\(root)\"]}"
        let error = Tokens.refusal {
            try Tokens.verifier().verify(Tokens.forge(header: notBase64, payload: Tokens.payload(), key: Fixtures.leafKey()), now: Tokens.noClock)
        }
        #expect(error == .undecodableCertificate(index: 1, reason: "not base64: '-' at offset 4 is not in the base64 alphabet"))
        let notDER = "{\"alg\":\"ES256\",\"x5c\":[\"AAAA\",\"\(intermediate)\",\"\(root)\"]}"
        guard
            case .undecodableCertificate(let index, _) = Tokens.refusal({
                try Tokens.verifier().verify(Tokens.forge(header: notDER, payload: Tokens.payload(), key: Fixtures.leafKey()), now: Tokens.noClock)
            })
        else {
            Issue.record("a leaf that is not DER was not refused as undecodable")
            return
        }
        #expect(index == 0)
    }

    @Test func headerRequiringExtensions_isMalformed() throws {
        let header = try Tokens.header(chain: Tokens.chain()).replacingOccurrences(of: "\"typ\"", with: "\"crit\":[\"exp\"],\"typ\"")
        let error = Tokens.refusal {
            try Tokens.verifier().verify(Tokens.forge(header: header, payload: Tokens.payload(), key: Fixtures.leafKey()), now: Tokens.noClock)
        }
        #expect(error == .malformedToken(part: .header, reason: "has crit: it requires extensions this verifier does not implement"))
    }

    @Test(arguments: [
        ("{\"alg\":\"ES256\",\"alg\":\"none\",\"x5c\":[]}", JWSPart.header, "is not JSON: invalid JSON: duplicate key \"alg\""),
        ("{\"x5c\":[]}", .header, "has no alg"),
        ("{\"alg\":256,\"x5c\":[]}", .header, "alg is not a string"),
        ("{\"alg\":\"ES256\",\"x5c\":\"MIIB\"}", .header, "x5c is not an array"),
        ("{\"alg\":\"ES256\",\"x5c\":[1,2,3]}", .header, "x5c[0] is not a string"),
        ("{\"alg\":\"ES256\",\"kid\":7,\"x5c\":[]}", .header, "kid is not a string"),
    ])
    func headerOfTheWrongShape_isMalformed(header: String, part: JWSPart, reason: String) throws {
        let token = try Tokens.forge(header: header, payload: Tokens.payload(), key: Fixtures.leafKey())
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        guard case .malformedToken(let refusedPart, let message) = error else {
            Issue.record("not refused as malformed: \(String(describing: error))")
            return
        }
        #expect(refusedPart == part)
        #expect(message.hasPrefix(reason), "\(message)")
    }

    @Test func signedDateThatIsNotAnInteger_isMalformed() throws {
        let token = try Tokens.signed(chain: Tokens.chain(), payload: "{\"signedDate\":\"1593648000000\"}")
        let error = Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) }
        #expect(error == .malformedToken(part: .payload, reason: "signedDate is not an integer number of milliseconds"))
    }

    /// The token is read in place, as text or as bytes: its parts are counted at every dot,
    /// the first and last bytes included.
    @Test(arguments: [("", 1), (".", 2), ("a.b", 2), ("...", 4), ("a.b.c.d.", 5), (".a.b.c", 4)])
    func partsAreCountedAtEveryDot(token: String, parts: Int) throws {
        let expected = SignatureError.malformedToken(part: .token, reason: "has \(parts) parts; a compact JWS has 3 (header.payload.signature)")
        #expect(Tokens.refusal { try Tokens.verifier().verify(token, now: Tokens.noClock) } == expected)
        #expect(Tokens.refusal { try Tokens.verifier().verify(utf8: Array(token.utf8), now: Tokens.noClock) } == expected)
    }

    @Test func tokenGivenAsBytes_verifiesAsItsText() throws {
        let token = try Tokens.signed(chain: Tokens.chain())
        let verifier = try Tokens.verifier()
        let fromText = try verifier.verify(token, now: Tokens.noClock)
        let fromBytes = try verifier.verify(utf8: Array(token.utf8), now: Tokens.noClock)
        #expect(fromBytes.payload == fromText.payload)
        #expect(fromBytes.signedDate == Fixtures.signedDate2020)
        let flipped = Array(try Tokens.flippingSignatureByte(token).utf8)
        #expect(Tokens.refusal { try verifier.verify(utf8: flipped, now: Tokens.noClock) } != nil)
    }

    @Test func errors_describeThemselves_forPeople() {
        #expect(SignatureError.unsupportedAlgorithm("none").description == "unsupported JWS algorithm \"none\": only ES256 is accepted")
        #expect(
            SignatureError.wrongChainLength(count: 2).description
                == "the JWS header's x5c holds 2 certificates; exactly 3 (leaf, intermediate, root) are required")
        #expect(SignatureError.malformedToken(part: .payload, reason: "is empty").description == "malformed JWS: the payload is empty")
    }
}
