import COpenSSL
import Glibc

/// What the crypto code needs from OpenSSL beyond single calls: its error queue, SHA-256, and
/// reading certificate times.
enum OpenSSL {
    /// Empties this thread's OpenSSL error queue and answers its reasons, oldest first, or
    /// `fallback` when it is empty. Every failed call is followed by this, so no error is left
    /// for a later, unrelated call to find.
    static func takeErrors(or fallback: String) -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if let reason = ERR_reason_error_string(code) {
                reasons.append(String(cString: reason))
            } else {
                reasons.append("error 0x\(String(code, radix: 16))")
            }
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }

    /// SHA-256, fetched once (OpenSSL 3 otherwise fetches the implementation on every use).
    nonisolated(unsafe) static let sha256Digest: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: ArraySlice<UInt8>) throws(SignatureError) -> [UInt8] {
        guard let digest = sha256Digest else {
            throw .openSSL(function: "EVP_MD_fetch", reason: takeErrors(or: "SHA256 is not available"))
        }
        var length: UInt32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: 32) { buffer, initialized in
            let status = bytes.withUnsafeBytes { input in EVP_Digest(input.baseAddress, input.count, buffer.baseAddress, &length, digest, nil) }
            initialized = status == 1 && length == 32 ? 32 : 0
        }
        guard output.count == 32 else { throw .openSSL(function: "EVP_Digest", reason: takeErrors(or: "SHA-256 failed")) }
        return output
    }

    /// An `ASN1_TIME` as milliseconds since the Unix epoch, or `nil` when it is not a valid time.
    static func milliseconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts)) * 1000
    }
}
