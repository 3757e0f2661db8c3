/// A publication entitlement as the download check's cache keeps it: what
/// ``PublicationEntitlement/keepingIssueDecisions()`` keeps, with each readable issue held as its
/// position in the publication's issues beside its reasons (16 bytes, where a ``ReadableIssue``
/// holds a 64-byte copy of the issue). ``asOf(_:)`` gives the kept answer back whole.
public struct KeptEntitlement: Sendable {
    /// The kept answer without its readable issues.
    private let answer: PublicationEntitlement
    /// The readable issues in order: each one's position in the publication's issues, and its reasons.
    private var readable: [(position: Int, reasons: [AccessReason])]

    /// Keeps what deciding and explaining an issue of `entitlement` reads.
    public init(_ entitlement: PublicationEntitlement) {
        var answer = entitlement.keepingIssueDecisions()
        let issues = answer.publication.issues
        // Readable issues are the publication's, in its order: each is found at or after the last.
        var position = 0
        readable = answer.readable.map { entry in
            while !(issues[position].id.sameBytes(as: entry.issue.id) && issues[position].published == entry.issue.published) { position += 1 }
            return (position, entry.reasons)
        }
        answer.readable = []
        self.answer = answer
    }

    /// Replaces each array of reasons an issue is readable for with the one `shared` gives for it
    /// (the same reasons), so that answers kept apart can share one.
    public mutating func shareReasons(_ shared: ([AccessReason]) -> [AccessReason]) {
        for index in readable.indices { readable[index].reasons = shared(readable[index].reasons) }
    }

    /// The as-of instants for which the answer holds (``PublicationEntitlement/stable``).
    public var stable: Range<Instant> { answer.stable }

    /// The kept answer (``PublicationEntitlement/keepingIssueDecisions()``) as of an instant inside
    /// ``stable``, its readable issues copied back from the publication.
    public func asOf(_ instant: Instant) -> PublicationEntitlement {
        var whole = answer.asOf(instant)
        let issues = answer.publication.issues
        var entries: [ReadableIssue] = []
        entries.reserveCapacity(readable.count)
        for entry in readable { entries.append(ReadableIssue(issue: issues[entry.position], reasons: entry.reasons)) }
        whole.readable = entries
        return whole
    }
}
