/// Strict base64 (RFC 4648): one spelling per byte string, nothing skipped or guessed.
///
/// Decoding refuses characters outside the alphabet (whitespace included), a length no byte
/// string has, misplaced or missing padding, and non-zero bits after the last byte.
public enum Base64 {
    /// The two alphabets signed data uses.
    public enum Alphabet: String, Hashable, Sendable, CustomStringConvertible {
        /// `A–Z a–z 0–9 + /`, padded with `=` to a multiple of four characters (RFC 4648 §4):
        /// `x5c` certificates (RFC 7515 §4.1.6) and PEM bodies.
        case standard = "base64"
        /// `A–Z a–z 0–9 - _` without padding (RFC 4648 §5, RFC 7515 §2): the parts of a compact JWS.
        case url = "base64url"

        public var description: String { rawValue }
    }

    /// Encodes `bytes`.
    public static func encode(_ bytes: [UInt8], _ alphabet: Alphabet) -> String {
        let symbols = alphabet == .standard ? standardSymbols : urlSymbols
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            text.append(symbols[Int(group >> 18 & 63)])
            text.append(symbols[Int(group >> 12 & 63)])
            text.append(symbols[Int(group >> 6 & 63)])
            text.append(symbols[Int(group & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let group = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            text.append(symbols[Int(group >> 18 & 63)])
            text.append(symbols[Int(group >> 12 & 63)])
            if remaining == 2 { text.append(symbols[Int(group >> 6 & 63)]) }
            if alphabet == .standard { text.append(contentsOf: remaining == 2 ? [0x3D] : [0x3D, 0x3D]) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes `text`.
    /// - Throws: ``SignatureError/invalidBase64(alphabet:reason:)`` naming the first problem.
    public static func decode(_ text: String, _ alphabet: Alphabet) throws(SignatureError) -> [UInt8] {
        let bytes = Array(text.utf8)
        if let decoded = decode(bytes[...], alphabet) { return decoded }
        throw .invalidBase64(alphabet: alphabet, reason: problem(in: bytes[...], alphabet))
    }

    /// Decodes UTF-8 `text`, or answers `nil` (``problem(in:_:)`` then says why).
    static func decode(_ text: ArraySlice<UInt8>, _ alphabet: Alphabet) -> [UInt8]? {
        text.withUnsafeBufferPointer { input in decode(input, alphabet) }
    }

    /// Decodes UTF-8 `text` read in place, or answers `nil` (``problem(in:_:)`` then says why).
    static func decode(_ text: UnsafeBufferPointer<UInt8>, _ alphabet: Alphabet) -> [UInt8]? {
        let table = alphabet == .standard ? standardValues : urlValues
        return table.withUnsafeBufferPointer { values in decode(text, alphabet, values) }
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ alphabet: Alphabet, _ table: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var length = text.count
        if alphabet == .standard {
            guard length % 4 == 0 else { return nil }
            if length > 0 && text[length - 1] == 0x3D {
                length -= 1
                if text[length - 1] == 0x3D { length -= 1 }
            }
        }
        guard length % 4 != 1 else { return nil }
        let decodedCount = length / 4 * 3 + max(length % 4 - 1, 0)
        var valid = true
        let decoded = [UInt8](unsafeUninitializedCapacity: decodedCount) { buffer, initialized in
            guard let input = text.baseAddress, let output = buffer.baseAddress else {
                initialized = 0
                return
            }
            var written = 0
            var index = 0
            var invalid: UInt8 = 0
            while index + 4 <= length {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                // Values are below 64; an invalid byte maps to 255 and sets the top bits.
                invalid |= a | b | c | d
                let group = UInt32(a & 63) << 18 | UInt32(b & 63) << 12 | UInt32(c & 63) << 6 | UInt32(d & 63)
                output[written] = UInt8(truncatingIfNeeded: group >> 16)
                output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                output[written + 2] = UInt8(truncatingIfNeeded: group)
                written += 3
                index += 4
            }
            if index < length {
                // Two or three final characters: one or two bytes, and bits that must be zero.
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = length - index == 3 ? table[Int(input[index + 2])] : 0
                invalid |= a | b | c
                let group = UInt32(a & 63) << 18 | UInt32(b & 63) << 12 | UInt32(c & 63) << 6
                output[written] = UInt8(truncatingIfNeeded: group >> 16)
                written += 1
                if length - index == 3 {
                    output[written] = UInt8(truncatingIfNeeded: group >> 8)
                    written += 1
                    valid = group & 0xFF == 0
                } else {
                    valid = group & 0xFFFF == 0
                }
            }
            valid = valid && invalid < 64
            initialized = written
        }
        return valid ? decoded : nil
    }

    /// Why ``decode(_:_:)-(ArraySlice<UInt8>,_)`` refused `text`: the first problem, with its offset.
    static func problem(in text: ArraySlice<UInt8>, _ alphabet: Alphabet) -> String {
        let table = alphabet == .standard ? standardValues : urlValues
        let start = text.startIndex
        var padding = 0
        for (offset, byte) in text.enumerated() {
            if byte == 0x3D && alphabet == .standard {
                padding += 1
                continue
            }
            if padding > 0 { return "padding '=' before the end, at offset \(offset - padding)" }
            if table[Int(byte)] >= 64 { return "\(quoted(byte)) at offset \(offset) is not in the \(alphabet) alphabet" }
        }
        switch alphabet {
        case .standard:
            if text.count % 4 != 0 { return "\(text.count) characters, not a multiple of 4 (missing padding?)" }
            if padding > 2 { return "\(padding) padding characters; at most 2" }
        case .url:
            if text.count % 4 == 1 { return "\(text.count) characters leave a lone final character" }
        }
        let symbols = text.count - padding
        if symbols % 4 == 1 { return "too much padding: \(symbols) characters leave a lone final character" }
        return "the final character \(quoted(text[start + symbols - 1])) carries bits after the last byte (not the canonical spelling)"
    }

    private static func quoted(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardValues = values(of: standardSymbols)
    private static let urlValues = values(of: urlSymbols)

    /// Each byte's six-bit value, 255 for bytes outside the alphabet.
    private static func values(of symbols: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 255, count: 256)
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }
}
