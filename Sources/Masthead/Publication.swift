/// A magazine and its issues, kept sorted by publish instant (then id) for binary search.
public struct Publication: Hashable, Sendable {
    public let id: String
    public let title: String?
    /// The issues ordered by publish instant, then id.
    public let issues: [Issue]
    /// `issues[i].published.milliseconds`, for binary search.
    let publishInstants: [Int64]
    /// Indices into `issues` of the free ones.
    let freeIssueIndices: [Int]
    let indexByIssueId: [ExactKey: Int]

    /// Creates a publication; the issues are sorted by publish instant, then id. Issue ids must be unique.
    public init(id: String, title: String? = nil, issues: [Issue]) {
        self.id = id
        self.title = title
        let sorted = issues.sorted { $0.published != $1.published ? $0.published < $1.published : $0.id.precedesInBytes($1.id) }
        self.issues = sorted
        publishInstants = sorted.map(\.published.milliseconds)
        freeIssueIndices = sorted.indices.filter { sorted[$0].isFree }
        indexByIssueId = Dictionary(sorted.enumerated().map { (ExactKey($1.id), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The position of an issue in ``issues``, found by the exact bytes of its id.
    public func index(ofIssue id: String) -> Int? { indexByIssueId[ExactKey(id)] }

    /// The number of issues published before `instant` (the first index with publish >= instant).
    public func countPublished(before instant: Instant) -> Int {
        var low = 0
        var high = publishInstants.count
        while low < high {
            let middle = (low + high) / 2
            if publishInstants[middle] < instant.milliseconds { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The number of issues published at or before `instant` (the first index with publish > instant).
    public func countPublished(atOrBefore instant: Instant) -> Int {
        var low = 0
        var high = publishInstants.count
        while low < high {
            let middle = (low + high) / 2
            if publishInstants[middle] <= instant.milliseconds { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Returns a copy with `issue` added, or replacing the issue with the same id (the same bytes).
    public func upserting(_ issue: Issue) -> Publication {
        Publication(id: id, title: title, issues: issues.filter { !$0.id.sameBytes(as: issue.id) } + [issue])
    }
}
