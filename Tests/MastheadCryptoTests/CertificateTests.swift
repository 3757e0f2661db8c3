import MastheadCrypto
import Testing

/// Certificates from DER and PEM, their validity and extensions, and the shipped Apple root.
struct CertificateTests {
    @Test func appleRootCAG3_isShipped_andIsTheG3Root() throws {
        let root = Certificate.appleRootCAG3
        #expect(root.subject == "CN=Apple Root CA - G3,OU=Apple Certification Authority,O=Apple Inc.,C=US")
        let fingerprint = try root.sha256Fingerprint().map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(fingerprint == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
        #expect(root == (try Fixtures.appleCertificate("real-apple-root.der")))
    }

    @Test func certificate_readsItsValidityWindow() throws {
        let leaf = try Fixtures.certificate("leaf.der")
        #expect(leaf.notBefore == 1_451_606_400_000)  // 2016-01-01T00:00:00Z
        #expect(leaf.notAfter == 2_366_841_600_000)  // 2045-01-01T00:00:00Z
        #expect(leaf.isValid(at: Fixtures.signedDate2020))
        #expect(leaf.isValid(at: 2_366_841_600_999))  // judged to the second, as OpenSSL does
        #expect(!leaf.isValid(at: 2_366_841_601_000))
        #expect(!leaf.isValid(at: 1_451_606_399_999))
        #expect(leaf.isValid(at: 1_451_606_400_000))
    }

    @Test func certificate_knowsWhichExtensionsItCarries() throws {
        #expect(try Fixtures.certificate("leaf.der").hasExtension(oid: JWSVerifier.appleLeafOID))
        #expect(try !Fixtures.certificate("leaf-without-oid.der").hasExtension(oid: JWSVerifier.appleLeafOID))
        #expect(try Fixtures.certificate("intermediate.der").hasExtension(oid: JWSVerifier.appleIntermediateOID))
        #expect(try !Fixtures.certificate("intermediate.der").hasExtension(oid: JWSVerifier.appleLeafOID))
        #expect(try Fixtures.appleCertificate("real-apple-signing-certificate.der").hasExtension(oid: JWSVerifier.appleLeafOID))
        #expect(try Fixtures.certificate("leaf.der").hasExtension(oid: "2.5.29.15"))  // key usage
    }

    @Test func certificates_readDERAndPEM_alike() throws {
        let der = try Fixtures.testChainBytes("root.der")
        let pem = try Fixtures.testChainBytes("root.pem")
        #expect(try Certificate.certificates(derOrPEM: der) == [Certificate(der: der)])
        #expect(try Certificate.certificates(derOrPEM: pem) == [Certificate(der: der)])
    }

    @Test func certificates_readEveryBlockOfPEM_inOrder_ignoringTextAround() throws {
        let chain = try Tokens.chain()
        let pem = "Masthead test chain\r\n" + chain.map { certificate in
            let body = Base64.encode(certificate.der, .standard)
            let lines = stride(from: 0, to: body.count, by: 64).map { offset in
                String(body.dropFirst(offset).prefix(64))
            }
            return "-----BEGIN CERTIFICATE-----\r\n" + lines.joined(separator: "\r\n") + "\r\n-----END CERTIFICATE-----\r\n"
        }.joined(separator: "\n")
        #expect(try Certificate.certificates(pem: pem) == chain)
    }

    @Test(arguments: [
        ("", "no -----BEGIN CERTIFICATE----- block"),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n", "has no END line"),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n-----END PRIVATE KEY-----\n", "ends block 1"),
        ("-----BEGIN CERTIFICATE-----\nMI*B\n-----END CERTIFICATE-----\n", "is not base64: '*' at offset 2"),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "block 1 (line 1): not a DER certificate"),
        ("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", "block 1 (line 1) is PRIVATE KEY, not CERTIFICATE"),
        ("-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n-----END CERTIFICATE-----\n", "has headers (line 2)"),
        ("-----BEGIN CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\n", "line 2 begins a block inside block 1"),
    ])
    func certificates_refuseBadPEM_namingTheBlock(text: String, reason: String) {
        let error = Tokens.refusal { try Certificate.certificates(pem: text) }
        guard case .invalidPEM(let message) = error else {
            Issue.record("not refused as PEM: \(String(describing: error))")
            return
        }
        #expect(message.contains(reason), "\(message)")
    }

    @Test func certificate_refusesBadDER_namingWhy() throws {
        let der = try Fixtures.certificate("root.der").der
        let cases: [([UInt8], String)] = [
            ([], "no bytes"),
            (Array(der.prefix(100)), ""),
            (der + [0], "1 bytes follow the certificate's \(der.count)"),
        ]
        for (bytes, reason) in cases {
            let error = Tokens.refusal { try Certificate(der: bytes) }
            guard case .invalidCertificate(let message) = error else {
                Issue.record("\(bytes.count) bytes not refused as DER: \(String(describing: error))")
                continue
            }
            #expect(!message.isEmpty)
            #expect(message.contains(reason), "\(message)")
        }
        let notUTF8 = Tokens.refusal { try Certificate.certificates(derOrPEM: [0xFF, 0xFE]) }
        #expect(notUTF8 == .invalidPEM(reason: "neither DER (which starts with byte 0x30) nor UTF-8 PEM text"))
    }
}
