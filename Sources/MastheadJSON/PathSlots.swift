/// The parser's place in each open container, for error paths: memory the parser owns, so that
/// setting the innermost container's slot (once per member or element) is a plain store, with no
/// copy-on-write check.
struct PathSlots: ~Copyable {
    private var base: UnsafeMutablePointer<Int>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The slot of the container at depth `index` (0 for the outermost open one).
    subscript(index: Int) -> Int { base[index] }

    /// The innermost open container's slot.
    var innermost: Int {
        @inline(__always) get { base[count - 1] }
        @inline(__always) set { base[count - 1] = newValue }
    }

    /// Adds the slot of a container just opened.
    @inline(__always)
    mutating func push(_ slot: Int) {
        if count == capacity { grow() }
        (base + count).initialize(to: slot)
        count += 1
    }

    /// Removes the innermost slot, as its container closes.
    @inline(__always)
    mutating func pop() { count -= 1 }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
