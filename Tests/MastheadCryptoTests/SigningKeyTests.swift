import MastheadCrypto
import Testing

/// P-256 private keys from PEM, and ES256 signatures verified with a certificate's key.
struct SigningKeyTests {
    @Test func signingKey_readsPKCS8AndSEC1_asTheSameKey() throws {
        let leaf = try Fixtures.certificate("leaf.der")
        let pkcs8 = try SigningKey(pem: Fixtures.text("leaf-key.pem"))
        let sec1 = try SigningKey(pem: Fixtures.text("leaf-key-sec1.pem"))
        #expect(pkcs8.isKey(of: leaf))
        #expect(sec1.isKey(of: leaf))
        #expect(try !SigningKey(pem: Fixtures.text("other-key.pem")).isKey(of: leaf))
        let message = Array("header.payload".utf8)
        try leaf.verifyES256(signature: sec1.signature(for: message), over: message)
    }

    @Test func signature_isRawRS_andVerifiesOnlyOverItsMessage() throws {
        let key = try Fixtures.leafKey()
        let leaf = try Fixtures.certificate("leaf.der")
        let message = Array("The Monthly".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        try leaf.verifyES256(signature: signature, over: message)
        #expect(throws: SignatureError.self) { try leaf.verifyES256(signature: signature, over: Array("The Weekly".utf8)) }
        var flipped = signature
        flipped[40] ^= 0x80
        #expect(throws: SignatureError.self) { try leaf.verifyES256(signature: flipped, over: message) }
    }

    @Test(arguments: [0, 63, 65, 72])
    func verifyES256_refusesSignaturesNot64Bytes(count: Int) throws {
        let leaf = try Fixtures.certificate("leaf.der")
        let error = Tokens.refusal { try leaf.verifyES256(signature: [UInt8](repeating: 1, count: count), over: [1]) }
        #expect(error == .invalidSignature(reason: "it is \(count) bytes; an ES256 signature is 64 (r‖s)"))
    }

    @Test func verifyES256_refusesAZeroSignature() throws {
        let leaf = try Fixtures.certificate("leaf.der")
        let error = Tokens.refusal { try leaf.verifyES256(signature: [UInt8](repeating: 0, count: 64), over: [1]) }
        guard case .invalidSignature = error else {
            Issue.record("r = s = 0 was not refused as an invalid signature: \(String(describing: error))")
            return
        }
    }

    @Test func keysOtherThanP256_areRefused_namingTheCurve() throws {
        let error = Tokens.refusal { try SigningKey(pem: Fixtures.text("p384-key.pem")) }
        #expect(error == .keyNotP256(found: "an EC key on secp384r1"))
        let leaf = try Fixtures.certificate("leaf-p384.der")
        let verifyError = Tokens.refusal { try leaf.verifyES256(signature: [UInt8](repeating: 1, count: 64), over: [1]) }
        #expect(verifyError == .keyNotP256(found: "an EC key on secp384r1"))
    }

    /// A key pasted as one line with literal `\n` makes its body part of the BEGIN line: the
    /// error names the line by number and quotes none of it.
    @Test func signingKey_oneLinePEM_isRefused_withoutQuotingTheKey() throws {
        let pem = try Fixtures.text("leaf-key.pem")
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let oneLine = pem.split(separator: "\n").joined(separator: "\\n")
        let error = Tokens.refusal { try SigningKey(pem: oneLine) }
        #expect(error == .invalidPEM(reason: "line 1 is not a BEGIN line (-----BEGIN LABEL----- with a label of 1 to 40 A-Z, 0-9 and spaces)"))
        let description = String(describing: error)
        let pieces = stride(from: 0, to: body.count - 8, by: 4).map { String(body.dropFirst($0).prefix(8)) }
        #expect(pieces.first(where: description.contains) == nil, "the error quotes the key")
    }

    @Test func signingKey_refusesPEMWithoutOneUnencryptedKey() throws {
        let certificate = try Fixtures.text("root.pem")
        #expect(Tokens.refusal { try SigningKey(pem: certificate) } == .invalidPEM(reason: "no -----BEGIN PRIVATE KEY----- block"))
        let two = try Fixtures.text("leaf-key.pem") + Fixtures.text("other-key.pem")
        #expect(Tokens.refusal { try SigningKey(pem: two) } == .invalidPEM(reason: "2 private keys; expected one"))
        let encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n"
        let error = Tokens.refusal { try SigningKey(pem: encrypted) }
        #expect(
            error
                == .invalidPrivateKey(reason: "a ENCRYPTED PRIVATE KEY block (line 1); expected PRIVATE KEY (PKCS#8) or EC PRIVATE KEY (SEC1), unencrypted"))
        let garbage = "-----BEGIN PRIVATE KEY-----\nMIIBAA==\n-----END PRIVATE KEY-----\n"
        guard case .invalidPrivateKey(let reason) = Tokens.refusal({ try SigningKey(pem: garbage) }) else {
            Issue.record("a garbage key was not refused")
            return
        }
        #expect(reason.hasPrefix("PRIVATE KEY (line 1): "))
    }
}
