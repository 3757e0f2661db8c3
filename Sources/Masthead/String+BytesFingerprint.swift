extension String {
    /// A 64-bit summary of this identifier's UTF-8 bytes (its length, first and last eight
    /// bytes): ids of equal bytes have equal fingerprints, so ids whose fingerprints differ
    /// differ, and only those of equal fingerprints need ``sameBytes(as:)``. Lets a short list
    /// of ids be searched with one integer comparison per id.
    var bytesFingerprint: UInt64 {
        var text = self
        return text.withUTF8 { bytes in
            let count = bytes.count
            var word: UInt64 = 0
            if count >= 8, let start = bytes.baseAddress {
                let raw = UnsafeRawPointer(start)
                word = raw.loadUnaligned(as: UInt64.self)
                if count > 8 {
                    let last = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    word ^= last << 29 | last >> 35
                }
            } else {
                for offset in 0..<count { word |= UInt64(bytes[offset]) << (8 * offset) }
            }
            return (word ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
        }
    }
}
