/// A map for a few entries, kept as one array of pairs searched in order: a reader's cached
/// answers (one per publication and environment asked) and check bodies (one per issue). One
/// allocation sized to its entries, where a dictionary keeps twice the buckets and its own header.
struct SmallMap<Key: Equatable, Value> {
    private var entries: [(key: Key, value: Value)] = []

    /// How many entries it holds.
    var count: Int { entries.count }

    /// The bytes its array of entries takes on the heap (its capacity, not its count; not what
    /// the keys and values hold elsewhere).
    var heapBytes: Int { HeapBytes.array(entries) }

    /// The value for `key`; setting nil removes it.
    subscript(key: Key) -> Value? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The entry at `position`, in the order their keys were added.
    subscript(position position: Int) -> (key: Key, value: Value) {
        get { entries[position] }
        set { entries[position] = newValue }
    }

    /// Changes the value for `key` in place, and gives it back changed; nil when there is none.
    mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Value? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        change(&entries[index].value)
        return entries[index].value
    }

    /// The first value, in the order their keys were added, that `matches`.
    func firstValue(where matches: (Value) -> Bool) -> Value? { entries.first { matches($0.value) }?.value }

    /// Removes the entry whose key was added first (setting a key's value keeps its place).
    mutating func removeFirstAdded() { entries.removeFirst() }

    /// Removes the entry at `position` (the later ones move up a place), releasing the storage
    /// when it was the last.
    mutating func remove(at position: Int) {
        entries.remove(at: position)
        if entries.isEmpty { entries = [] }
    }

    /// Removes every entry, releasing their storage.
    mutating func removeAll() { entries = [] }
}
