import COpenSSL

/// HMAC-SHA256 (RFC 2104), through OpenSSL: what webhook deliveries are signed with.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key` (any length; an empty key is allowed).
    public static func authenticationCode(key: [UInt8], message: [UInt8]) throws(SignatureError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let made = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                // A null key pointer is refused by OpenSSL even with length 0: point at a byte.
                var none: UInt8 = 0
                return withUnsafePointer(to: &none) { empty in
                    HMAC(
                        EVP_sha256(), key.baseAddress ?? UnsafeRawPointer(empty), Int32(key.count),
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? empty, message.count, &output, &length) != nil
                }
            }
        }
        guard made, length == 32 else { throw .openSSL(function: "HMAC", reason: OpenSSL.takeErrors(or: "HMAC-SHA-256 failed")) }
        return output
    }

    /// ``authenticationCode(key:message:)`` in lower-case hexadecimal (64 digits).
    public static func hex(key: [UInt8], message: [UInt8]) throws(SignatureError) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in try authenticationCode(key: key, message: message) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
