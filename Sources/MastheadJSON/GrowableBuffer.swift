/// Elements the parser appends, in memory it owns: appending is a capacity check and a store,
/// with no copy-on-write check per element. The tape of tokens (which a ``JSONStorage`` then
/// takes over) and the parser's place in each open container (for error paths) are two.
struct GrowableBuffer<Element: BitwiseCopyable>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    subscript(index: Int) -> Element {
        @inline(__always) get { base[index] }
        @inline(__always) set { base[index] = newValue }
    }

    /// The last element (the innermost open container's slot).
    var last: Element {
        @inline(__always) get { base[count - 1] }
        @inline(__always) set { base[count - 1] = newValue }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Removes the last element.
    @inline(__always)
    mutating func removeLast() { count -= 1 }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Hands the memory over to the caller, who must deallocate it.
    consuming func take() -> UnsafeMutablePointer<Element> {
        let taken = base
        discard self
        return taken
    }
}
