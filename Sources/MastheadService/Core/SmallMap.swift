/// A map for a few entries, kept as one array of pairs searched in order: a reader's cached
/// answers (one per publication and environment asked) and check bodies (one per issue). One
/// allocation sized to its entries, where a dictionary keeps twice the buckets and its own header.
struct SmallMap<Key: Equatable, Value> {
    private var entries: [(key: Key, value: Value)] = []

    /// How many entries it holds.
    var count: Int { entries.count }

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

    /// The first value, in the order their keys were added, that `matches`.
    func firstValue(where matches: (Value) -> Bool) -> Value? { entries.first { matches($0.value) }?.value }

    /// Removes the entry whose key was added first (setting a key's value keeps its place).
    mutating func removeFirstAdded() { entries.removeFirst() }

    /// Removes every entry, releasing their storage.
    mutating func removeAll() { entries = [] }
}
