import Synchronization

/// Chains verified once, keyed by their leaf and intermediate bytes, so that the many tokens one
/// leaf signs cost one chain verification; signatures are still checked on every token.
///
/// An entry answers only for instants inside its chain's common validity window (any other
/// instant is judged again), and the cache holds at most `capacity` entries, dropping the oldest.
final class ChainCache: Sendable {
    /// A chain's identity: its leaf's and intermediate's DER bytes, hashed once outside the lock.
    struct Key: Hashable, Sendable {
        let leaf: [UInt8]
        let intermediate: [UInt8]
        private let digest: Int

        init(leaf: [UInt8], intermediate: [UInt8]) {
            self.leaf = leaf
            self.intermediate = intermediate
            // Hashing the bytes in bulk: an array's own hash combines its elements one by one.
            var hasher = Hasher()
            leaf.withUnsafeBytes { hasher.combine(bytes: $0) }
            intermediate.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(leaf.count)
            digest = hasher.finalize()
        }

        static func == (left: Key, right: Key) -> Bool {
            left.digest == right.digest && left.leaf == right.leaf && left.intermediate == right.intermediate
        }

        func hash(into hasher: inout Hasher) { hasher.combine(digest) }
    }

    /// A verified chain and its leaf's key, ready to check signatures.
    struct Entry: Sendable {
        let chain: VerifiedChain
        let key: P256PublicKey
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The keys in the order they were added, oldest first.
        var order: [Key] = []
    }

    let capacity: Int
    private let state = Mutex(State())

    /// A cache of at most `capacity` chains (none when `capacity` is 0).
    init(capacity: Int) { self.capacity = max(capacity, 0) }

    /// The entry for `key` when its chain is valid at `milliseconds`.
    func entry(for key: Key, at milliseconds: Int64) -> Entry? {
        guard let entry = state.withLock({ $0.entries[key] }), entry.chain.isValid(at: milliseconds) else { return nil }
        return entry
    }

    /// Adds or replaces the entry for `key`, dropping the oldest entry when full.
    func insert(_ entry: Entry, for key: Key) {
        guard capacity > 0 else { return }
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) != nil { return }
            state.order.append(key)
            if state.order.count > capacity { state.entries[state.order.removeFirst()] = nil }
        }
    }

    /// The number of chains held.
    var count: Int { state.withLock { $0.entries.count } }
}
