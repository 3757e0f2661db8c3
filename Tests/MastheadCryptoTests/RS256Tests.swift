import Foundation
import MastheadCrypto
import Testing

/// RSA keys (PEM, JWK modulus and exponent) and RS256 signatures, against the openssl command line's.
struct RS256Tests {
    static let folder = Fixtures.root.appendingPathComponent("Tests/Fixtures/google-play")
    static func text(_ name: String) throws -> String { String(decoding: try Fixtures.bytes(folder.appendingPathComponent(name)), as: UTF8.self) }
    static func bytes(_ name: String) throws -> [UInt8] { try Fixtures.bytes(folder.appendingPathComponent(name)) }

    @Test func sign_givesTheOpenSSLCommandLinesSignature_andVerifies() throws {
        let key = try RSAPrivateKey(pem: Self.text("oidc-signer-key.pem"))
        let message = try Self.bytes("signed-message.txt")
        let signature = try RS256.sign(message, with: key)
        // PKCS #1 v1.5 is deterministic: the same bytes as `openssl dgst -sha256 -sign`.
        #expect(signature == (try Self.bytes("signed-message.rs256")))
        let publicKey = try RSAPublicKey(pem: Self.text("oidc-signer-public.pem"))
        #expect(RS256.verify(signature, of: message, with: publicKey))
        #expect(publicKey.bits == 2048)
    }

    @Test func verify_refusesAnotherMessage_aFlippedBit_anotherKey_andPSS() throws {
        let message = try Self.bytes("signed-message.txt")
        let signature = try Self.bytes("signed-message.rs256")
        let publicKey = try RSAPublicKey(pem: Self.text("oidc-signer-public.pem"))
        #expect(!RS256.verify(signature, of: message + [0x2E], with: publicKey))
        var flipped = signature
        flipped[100] ^= 0x01
        #expect(!RS256.verify(flipped, of: message, with: publicKey))
        let other = try RSAPrivateKey(pem: Self.text("other-key.pem")).publicKey
        #expect(!RS256.verify(signature, of: message, with: other))
        #expect(!RS256.verify(try Self.bytes("signed-message.ps256"), of: message, with: publicKey))
        #expect(!RS256.verify(Array(signature.dropFirst()), of: message, with: publicKey))
        #expect(!RS256.verify([], of: message, with: publicKey))
    }

    @Test func publicKey_fromModulusAndExponent_isThePEMsKey() throws {
        let pem = try RSAPublicKey(pem: Self.text("oidc-signer-public.pem"))
        let fromParts = try RSAPublicKey(modulus: pem.modulus, exponent: pem.exponent)
        #expect(pem.exponent == [0x01, 0x00, 0x01])
        #expect(pem.modulus.count == 256)
        #expect(fromParts.modulus == pem.modulus)
        #expect(RS256.verify(try Self.bytes("signed-message.rs256"), of: try Self.bytes("signed-message.txt"), with: fromParts))
    }

    @Test func publicKey_refusesBadModulusAndExponent() throws {
        let pem = try RSAPublicKey(pem: Self.text("oidc-signer-public.pem"))
        func refusal(_ modulus: [UInt8], _ exponent: [UInt8]) -> SignatureError? {
            do {
                _ = try RSAPublicKey(modulus: modulus, exponent: exponent)
                return nil
            } catch { return error }
        }
        #expect(refusal([], [1, 0, 1]) == .invalidRSAKey(reason: "the modulus is empty"))
        #expect(refusal([0] + pem.modulus, [1, 0, 1]) == .invalidRSAKey(reason: "the modulus has a leading zero byte"))
        #expect(refusal(pem.modulus, []) == .invalidRSAKey(reason: "the exponent is empty"))
        #expect(refusal(pem.modulus, [0, 3]) == .invalidRSAKey(reason: "the exponent has a leading zero byte"))
        #expect(refusal(pem.modulus, [1]) == .invalidRSAKey(reason: "the exponent 1 is not an odd number of at least 3"))
        #expect(refusal(pem.modulus, [1, 0, 0]) == .invalidRSAKey(reason: "the exponent 65536 is not an odd number of at least 3"))
        #expect(refusal(Array(pem.modulus.prefix(128)), [1, 0, 1]) == .invalidRSAKey(reason: "a 1024-bit modulus; at least 2048 bits are required"))
        #expect(refusal([0xC5] + [UInt8](repeating: 0xAB, count: 1024), [1, 0, 1]) == .invalidRSAKey(reason: "a 8200-bit modulus; at most 8192 bits are accepted"))
    }

    @Test func privateKey_refusesAShortKey_PKCS1_anECKey_andSeveralKeys() throws {
        #expect(throws: SignatureError.invalidRSAKey(reason: "a 1024-bit modulus; at least 2048 bits are required")) {
            try RSAPrivateKey(pem: Self.text("short-key.pem"))
        }
        #expect(throws: SignatureError.invalidPrivateKey(reason: "a RSA PRIVATE KEY block (line 1); expected PRIVATE KEY (PKCS #8), unencrypted")) {
            try RSAPrivateKey(pem: Self.text("other-key-pkcs1.pem"))
        }
        #expect(throws: SignatureError.invalidRSAKey(reason: "a id-ecPublicKey key, not an RSA key")) {
            try RSAPrivateKey(pem: Fixtures.text("leaf-key.pem"))
        }
        let two = try Self.text("other-key.pem") + Self.text("oidc-signer-key.pem")
        #expect(throws: SignatureError.invalidPEM(reason: "2 private keys; expected one")) { try RSAPrivateKey(pem: two) }
        #expect(throws: SignatureError.invalidPEM(reason: "no -----BEGIN PUBLIC KEY----- block")) { try RSAPublicKey(pem: Self.text("other-key.pem")) }
    }
}
