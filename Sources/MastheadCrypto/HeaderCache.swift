import Glibc
import Synchronization

/// Headers of recent tokens, decoded and checked, found again by their bytes: the tokens one
/// signer makes share one header (most of their bytes, with its `x5c` chain), which is then
/// decoded, parsed and hashed once instead of once a token.
///
/// It remembers only how a header reads, never whether its chain is trusted: the chain (through
/// ``ChainCache``, at each token's own `signedDate`) and the signature are still checked on every
/// token. At most `capacity` headers are held, the oldest dropped first.
final class HeaderCache: Sendable {
    let capacity: Int
    /// The headers, newest last.
    private let headers = Mutex<[CompactJWS.Header]>([])

    /// A cache of at most `capacity` headers (none when `capacity` is 0).
    init(capacity: Int) { self.capacity = max(capacity, 0) }

    /// The header whose text is exactly `text`, when one is held.
    func header(_ text: UnsafeBufferPointer<UInt8>) -> CompactJWS.Header? {
        let wanted = UnsafeRawBufferPointer(text)
        return headers.withLock { headers in headers.last { HeaderCache.same($0.text, wanted) } }
    }

    /// Adds `header` unless one with the same text is held, dropping the oldest when full.
    func insert(_ header: CompactJWS.Header) {
        guard capacity > 0 else { return }
        header.text.withUnsafeBytes { text in
            headers.withLock { headers in
                if headers.contains(where: { HeaderCache.same($0.text, text) }) { return }
                headers.append(header)
                if headers.count > capacity { headers.removeFirst() }
            }
        }
    }

    /// The number of headers held.
    var count: Int { headers.withLock { $0.count } }

    private static func same(_ bytes: [UInt8], _ other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == other.count else { return false }
        // Cached headers are never empty (an empty header part is refused).
        return bytes.withUnsafeBytes { memcmp($0.baseAddress!, other.baseAddress!, other.count) == 0 }
    }
}
