/// Checks the text form of UUIDs in signed payloads (`appAccountToken`, `notificationUUID`).
enum UUIDText {
    /// `text` in lower case when it is a UUID: 32 hexadecimal digits grouped 8-4-4-4-12 by
    /// hyphens; nil otherwise.
    static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(36)
        for (offset, byte) in bytes.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                result.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): result.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): result.append(byte + 0x20)
            default: return nil
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
