/// The kind of a value in a parsed document.
public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null
}

/// One entry of a document's tape: a value, in document order.
///
/// Strings hold the byte range between their quotes; numbers their byte range; containers the
/// byte offset of their opening bracket and the tape index just past their last descendant, so a
/// reader can skip a whole container in one step.
@usableFromInline
struct JSONToken: Sendable {
    @usableFromInline var kind: JSONKind
    /// For strings: the text holds at least one escape sequence and must be decoded.
    @usableFromInline var hasEscapes: Bool
    @usableFromInline var start: UInt32
    /// Byte end for scalars; tape index past the last descendant for containers.
    @usableFromInline var end: UInt32
}

/// The tokens a parser appends, in memory that a ``JSONStorage`` then takes over: appending is a
/// capacity check and a store, with no copy-on-write check per token.
struct TokenBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<JSONToken>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    subscript(index: Int) -> JSONToken {
        @inline(__always) get { base[index] }
        @inline(__always) set { base[index] = newValue }
    }

    @inline(__always)
    mutating func append(_ token: JSONToken) {
        if count == capacity { grow() }
        (base + count).initialize(to: token)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<JSONToken>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Hands the memory over to the caller, who must deallocate it.
    consuming func take() -> UnsafeMutablePointer<JSONToken> {
        let taken = base
        discard self
        return taken
    }
}
