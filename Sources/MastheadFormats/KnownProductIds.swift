import Glibc

/// The catalog's product ids, found by their UTF-8 bytes: a transaction whose product the
/// catalog knows then carries the catalog's own string — nothing is allocated for it, and
/// comparing it with the catalog's is immediate.
struct KnownProductIds: Sendable {
    private let ids: [String]
    private let keys: [UInt64]
    /// Open addressing: an index into `ids`, or -1 for an empty slot.
    private let slots: [Int]
    private let shift: UInt64

    init(_ productIds: some Sequence<String>) {
        ids = Array(productIds)
        keys = ids.map { id in Array(id.utf8).withUnsafeBufferPointer { KnownProductIds.key($0) } }
        var bits: UInt64 = 2
        while (1 << bits) < ids.count * 4 { bits += 1 }
        shift = 64 - bits
        var slots = [Int](repeating: -1, count: 1 << bits)
        for (index, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = index
        }
        self.slots = slots
    }

    /// The catalog's product id whose bytes are `bytes`; nil when the catalog has none.
    func id(matching bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let key = KnownProductIds.key(bytes)
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while true {
            let index = slots[slot]
            if index < 0 { return nil }
            if keys[index] == key {
                var id = ids[index]
                if id.withUTF8({ $0.count == bytes.count && (bytes.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0) }) {
                    return id
                }
            }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    /// The length and the first and last eight bytes (or all bytes of a short id), mixed.
    private static func key(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var key = UInt64(bytes.count) &* 0xFF51_AFD7_ED55_8CCD
        if bytes.count >= 8, let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            key ^= raw.loadUnaligned(as: UInt64.self)
            key = (key &* 0xC4CE_B9FE_1A85_EC53) ^ raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for byte in bytes { key = (key ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        return key
    }
}
