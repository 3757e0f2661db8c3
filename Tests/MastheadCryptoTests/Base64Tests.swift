import MastheadCrypto
import Testing

/// Strict base64 and base64url: one spelling per byte string.
struct Base64Tests {
    @Test(arguments: [0, 1, 2, 3, 4, 5, 31, 32, 33, 64])
    func encode_roundTrips_inBothAlphabets(count: Int) throws {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
        #expect(try Base64.decode(Base64.encode(bytes, .standard), .standard) == bytes)
        #expect(try Base64.decode(Base64.encode(bytes, .url), .url) == bytes)
    }

    @Test func encode_usesEachAlphabetsSymbolsAndPadding() {
        #expect(Base64.encode([0xFB, 0xFF], .standard) == "+/8=")
        #expect(Base64.encode([0xFB, 0xFF], .url) == "-_8")
        #expect(Base64.encode(Array("Ma".utf8), .standard) == "TWE=")
        #expect(Base64.encode(Array("M".utf8), .standard) == "TQ==")
    }

    @Test(arguments: [
        ("TWE=", Base64.Alphabet.url, "'=' at offset 3"),
        ("+/8", .url, "'+' at offset 0"),
        ("TWE", .standard, "not a multiple of 4"),
        ("TW=E", .standard, "padding '=' before the end, at offset 2"),
        ("TQ=", .standard, "not a multiple of 4"),
        ("TR==", .standard, "not the canonical spelling"),
        ("TWF", .url, "not the canonical spelling"),
        ("TWFu\n", .url, "byte 0xA at offset 4"),
        ("TWFuT", .url, "lone final character"),
        ("T===", .standard, "at most 2"),
        ("TWF u", .standard, "' ' at offset 3"),
        ("TW*uTWFu", .url, "'*' at offset 2"),
        ("TWFuTW\u{e9}u", .url, "byte 0xC3 at offset 6"),
    ])
    func decode_refusesNonCanonicalText_namingWhy(text: String, alphabet: Base64.Alphabet, reason: String) {
        let error = Tokens.refusal { try Base64.decode(text, alphabet) }
        guard case .invalidBase64(let refusedAlphabet, let message) = error else {
            Issue.record("\(text) was not refused: \(String(describing: error))")
            return
        }
        #expect(refusedAlphabet == alphabet)
        #expect(message.contains(reason), "\(message)")
    }
}
