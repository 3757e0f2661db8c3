import MastheadCrypto
import Testing

/// The chain- and signature-level expected outcomes of `Tests/Fixtures/appstore-v2/README.md`:
/// Apple's own test vectors, judged offline as Apple's library judges them.
struct AppleVectorTests {
    static func verifier(root: String = "root-ca.der") throws -> JWSVerifier {
        try JWSVerifier(rootCertificates: [Fixtures.appleCertificate(root)])
    }

    @Test func testChain_isValid_atTheEffectiveDate() throws {
        let chain = try Self.verifier().verifyChain(
            leaf: Fixtures.appleCertificate("leaf-cert.der"), intermediate: Fixtures.appleCertificate("intermediate-ca.der"), at: Fixtures.appleEffectiveDate)
        #expect(chain.root == (try Fixtures.appleCertificate("root-ca.der")))
        #expect(chain.isValid(at: Fixtures.appleEffectiveDate))
    }

    @Test func leafWithoutTheLeafOID_isRefused() throws {
        let error = Tokens.refusal {
            try Self.verifier().verifyChain(
                leaf: Fixtures.appleCertificate("leaf-cert-invalid-oid.der"), intermediate: Fixtures.appleCertificate("intermediate-ca.der"),
                at: Fixtures.appleEffectiveDate)
        }
        #expect(error == .missingLeafOID(JWSVerifier.appleLeafOID, subject: "C=US,ST=CA,L=Cupertino,O=Leaf"))
    }

    @Test(arguments: ["leaf-cert-for-intermediate-ca-invalid-oid.der", "leaf-cert.der"])
    func intermediateWithoutTheIntermediateOID_isRefused(leaf: String) throws {
        let error = Tokens.refusal {
            try Self.verifier().verifyChain(
                leaf: Fixtures.appleCertificate(leaf), intermediate: Fixtures.appleCertificate("intermediate-ca-invalid-oid.der"),
                at: Fixtures.appleEffectiveDate)
        }
        #expect(error == .missingIntermediateOID(JWSVerifier.appleIntermediateOID, subject: "C=US,ST=CA,L=Cupertino,O=Intermediate"))
    }

    @Test(arguments: ["leaf-cert.der", "leaf-cert-invalid-oid.der"])
    func anyChain_isRefused_afterItsCertificatesExpire(leaf: String) throws {
        let error = Tokens.refusal {
            try Self.verifier().verifyChain(
                leaf: Fixtures.appleCertificate(leaf), intermediate: Fixtures.appleCertificate("intermediate-ca.der"), at: Fixtures.appleExpiredDate)
        }
        guard case .certificateExpired(_, _, let notAfter, let at) = error else {
            Issue.record("not refused as expired: \(String(describing: error))")
            return
        }
        #expect(at == Fixtures.appleExpiredDate)
        #expect(notAfter < Fixtures.appleExpiredDate)
    }

    @Test func testChain_isRefused_againstAppleRootCAG3() throws {
        let error = Tokens.refusal {
            try JWSVerifier().verifyChain(
                leaf: Fixtures.appleCertificate("leaf-cert.der"), intermediate: Fixtures.appleCertificate("intermediate-ca.der"), at: Fixtures.appleEffectiveDate)
        }
        guard case .untrustedChain(let reason) = error else {
            Issue.record("not refused as untrusted: \(String(describing: error))")
            return
        }
        #expect(reason.contains("unable to get local issuer certificate"), "\(reason)")
    }

    @Test func realAppleChain_isValid_againstTheShippedRoot_onTheEffectiveDate() throws {
        let chain = try JWSVerifier().verifyChain(
            leaf: Fixtures.appleCertificate("real-apple-signing-certificate.der"), intermediate: Fixtures.appleCertificate("real-apple-intermediate.der"),
            at: Fixtures.appleEffectiveDate)
        #expect(chain.root == Certificate.appleRootCAG3)
        #expect(chain.leaf.subject.hasPrefix("CN=Prod ECC Mac App Store and iTunes Store Receipt Signing"))
    }

    @Test(arguments: [
        ("testNotification", Int64(1_681_314_324_000)),
        ("transactionInfo", Int64(1_672_956_154_000)),
        ("renewalInfo", Int64(1_672_956_154_000)),
    ])
    func signedData_verifies_withTheTestRoot_atItsSignedDate(name: String, signedDate: Int64) throws {
        let verified = try Self.verifier().verify(Fixtures.appleToken(name), now: Tokens.noClock)
        #expect(verified.signedDate == signedDate)
        #expect(verified.judgedAt == signedDate)
        #expect(verified.header.algorithm == "ES256")
        #expect(verified.header.type == "JWT")
        #expect(verified.header.certificateChain.count == 3)
        #expect(String(decoding: verified.payload, as: UTF8.self).contains("\"environment\":\"Sandbox\""))
    }

    @Test func signedDataWithoutSignedDate_isJudgedAtTheCallersNow() throws {
        let token = try Fixtures.appleToken("wrongBundleId")
        let verified = try Self.verifier().verify(token, now: { Fixtures.appleEffectiveDate })
        #expect(verified.signedDate == nil)
        #expect(verified.judgedAt == Fixtures.appleEffectiveDate)
        let error = Tokens.refusal { try Self.verifier().verify(token, now: { Fixtures.appleExpiredDate }) }
        guard case .certificateExpired = error else {
            Issue.record("not judged at the caller's now: \(String(describing: error))")
            return
        }
    }

    @Test func signedData_isRefused_againstAnotherRoot() throws {
        let error = Tokens.refusal { try JWSVerifier().verify(Fixtures.appleToken("testNotification"), now: Tokens.noClock) }
        guard case .untrustedChain = error else {
            Issue.record("not refused as untrusted: \(String(describing: error))")
            return
        }
    }

    @Test func missingX5CHeaderClaim_isMalformed() throws {
        let error = Tokens.refusal {
            try Self.verifier().verify(Fixtures.appleToken("missingX5CHeaderClaim"), now: { Fixtures.appleEffectiveDate })
        }
        #expect(error == .malformedToken(part: .header, reason: "has no x5c certificate chain"))
    }

    @Test func legacyTransaction_isMalformed() throws {
        let error = Tokens.refusal { try Self.verifier().verify(Fixtures.appleToken("legacyTransaction"), now: Tokens.noClock) }
        #expect(error == .malformedToken(part: .token, reason: "has 1 parts; a compact JWS has 3 (header.payload.signature)"))
    }

    @Test func fourParts_areMalformed() throws {
        let error = Tokens.refusal { try Self.verifier().verify("a.b.c.d", now: Tokens.noClock) }
        #expect(error == .malformedToken(part: .token, reason: "has 4 parts; a compact JWS has 3 (header.payload.signature)"))
    }

    @Test(arguments: [
        ("a+b.e30.AAAA", JWSPart.header, "is not base64url: '+' at offset 1 is not in the base64url alphabet"),
        ("e30=.e30.AAAA", .header, "is not base64url: '=' at offset 3 is not in the base64url alphabet"),
        ("bm90IGpzb24.e30.AAAA", .header, "is not JSON"),
        ("W10.e30.AAAA", .header, "is not a JSON object"),
        ("e30.e30/.AAAA", .payload, "is not base64url: '/' at offset 3"),
        ("e30.bm90IGpzb24.AAAA", .payload, "is not JSON"),
        ("e30..AAAA", .payload, "is empty"),
        ("e30.e30.AA AA", .signature, "is not base64url: ' ' at offset 2"),
    ])
    func partsThatAreNotBase64urlJSON_areMalformed(token: String, part: JWSPart, reason: String) throws {
        let error = Tokens.refusal { try Self.verifier().verify(token, now: Tokens.noClock) }
        guard case .malformedToken(let refusedPart, let message) = error else {
            Issue.record("\(token) was not refused as malformed: \(String(describing: error))")
            return
        }
        #expect(refusedPart == part)
        #expect(message.hasPrefix(reason), "\(message)")
    }
}
