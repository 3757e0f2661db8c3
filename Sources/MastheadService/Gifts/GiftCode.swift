import MastheadCrypto

/// A gift code as readers see it: 80 bits from the system's cryptographically secure generator,
/// written as 16 characters of Crockford's base32 (digits and capital letters without I, L, O and
/// U) in four groups, `7K2M-9QXD-H4TB-0RZW`.
///
/// A code typed back is read in either case, with or without the dashes and spaces, and with I
/// or L for 1 and O for 0 (Crockford's decoding); it is stored only as the SHA-256 hash of its 16
/// characters.
struct GiftCode: Hashable, Sendable {
    /// The 16 characters, without dashes.
    let characters: String

    /// Crockford's base32 alphabet.
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// How many characters a code has.
    static let length = 16

    /// A new code from `generator` (the system's by default: `getrandom` on Linux).
    static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> GiftCode {
        // 80 bits: 16 characters of 5 bits each.
        let bytes = (0..<10).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var bits: UInt32 = 0
        var count = 0
        var characters: [UInt8] = []
        for byte in bytes {
            bits = bits << 8 | UInt32(byte)
            count += 8
            while count >= 5 {
                count -= 5
                characters.append(alphabet[Int(bits >> UInt32(count) & 0x1F)])
            }
        }
        return GiftCode(characters: String(decoding: characters, as: UTF8.self))
    }

    /// A new code from the system's generator.
    static func random() -> GiftCode {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The code as typed by a reader, normalised; nil when it is not 16 characters of the alphabet
    /// once dashes and spaces are dropped.
    init?(typed text: String) {
        var characters: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { continue }
            guard characters.count < GiftCode.length, byte < 0x80 else { return nil }
            var upper = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
            if upper == UInt8(ascii: "I") || upper == UInt8(ascii: "L") { upper = UInt8(ascii: "1") }
            if upper == UInt8(ascii: "O") { upper = UInt8(ascii: "0") }
            guard GiftCode.alphabet.contains(upper) else { return nil }
            characters.append(upper)
        }
        guard characters.count == GiftCode.length else { return nil }
        self.characters = String(decoding: characters, as: UTF8.self)
    }

    private init(characters: String) {
        self.characters = characters
    }

    /// The code as given to readers: four groups of four joined by dashes.
    var grouped: String {
        let characters = Array(self.characters)
        return stride(from: 0, to: characters.count, by: 4).map { String(characters[$0..<min($0 + 4, characters.count)]) }.joined(separator: "-")
    }

    /// What the store keeps: the SHA-256 hash of the 16 characters.
    func hash() throws(SignatureError) -> [UInt8] {
        try SHA256.digest(Array(characters.utf8))
    }
}
