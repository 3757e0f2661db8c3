/// The heap bytes a value's own allocations take, as glibc's `malloc` lays them out: what the
/// answer cache counts against its budget for check bodies (``HistoryCache``).
///
/// An allocation of `n` bytes takes a chunk of `n` plus malloc's 8-byte header, rounded up to 16
/// bytes, and at least 32. An array's storage is its 32-byte header (the object's header, count and
/// capacity) and room for its capacity, not its count (Swift sizes the capacity to the chunk it
/// was given); an empty array allocates nothing. A string of at most 15 UTF-8 bytes is held inline
/// (a small string); a longer one in an allocation of a 32-byte header, its bytes and a NUL.
enum HeapBytes {
    /// The chunk glibc's `malloc` takes for a request of `bytes`.
    static func chunk(_ bytes: Int) -> Int { max(32, (bytes + 8 + 15) & ~15) }

    /// The bytes an array's storage takes: none when it has no capacity.
    static func array<Element>(_ array: [Element]) -> Int {
        array.capacity == 0 ? 0 : chunk(32 + array.capacity * MemoryLayout<Element>.stride)
    }

    /// The bytes an array of `capacity` elements takes.
    static func array<Element>(of _: Element.Type, capacity: Int) -> Int {
        capacity == 0 ? 0 : chunk(32 + capacity * MemoryLayout<Element>.stride)
    }

    /// The bytes a string's storage takes: none for a small string (held inline).
    static func string(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 0 : chunk(32 + count + 1)
    }
}
