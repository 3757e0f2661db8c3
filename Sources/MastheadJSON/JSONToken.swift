/// The kind of a value in a parsed document.
public enum JSONKind: UInt8, Sendable, BitwiseCopyable {
    case object, array, string, number, `true`, `false`, null
}

/// One entry of a document's tape: a value, in document order.
///
/// Strings hold the byte range between their quotes; numbers their byte range; containers the
/// byte offset of their opening bracket and the tape index just past their last descendant, so a
/// reader can skip a whole container in one step.
@usableFromInline
struct JSONToken: Sendable, BitwiseCopyable {
    @usableFromInline var kind: JSONKind
    /// For strings: the text holds at least one escape sequence and must be decoded.
    @usableFromInline var hasEscapes: Bool
    @usableFromInline var start: UInt32
    /// Byte end for scalars; tape index past the last descendant for containers.
    @usableFromInline var end: UInt32
}
