import MastheadCrypto
import Testing

/// HMAC-SHA256 against RFC 4231's test vectors.
struct HMACSHA256Tests {
    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test(arguments: [
        // RFC 4231 test case 1: a 20-byte key of 0x0b, "Hi There".
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        // Test case 2: the key "Jefe".
        ("4a656665", Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        // Test case 6: a 131-byte key, longer than the block, hashed first.
        (
            String(repeating: "aa", count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ])
    func hex_matchesRFC4231(key: String, message: [UInt8], expected: String) throws {
        #expect(try HMACSHA256.hex(key: Self.bytes(hex: key), message: message) == expected)
    }

    @Test func emptyKeyAndMessage_areAllowed() throws {
        // HMAC-SHA256("", "") as every implementation gives it.
        #expect(try HMACSHA256.hex(key: [], message: []) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}
