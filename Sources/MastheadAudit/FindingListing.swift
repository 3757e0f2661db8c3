import Masthead

/// The reconciliation findings the HTML report lists: per (instant, kind, product) group, the
/// lines with the most issues first (input order among equals), at most `capacity` a group.
struct FindingListing {
    struct Key: Hashable {
        var instant: Int
        var kind: GrantFinding
        /// The product id's exact bytes.
        var product: ExactKey
    }

    let capacity: Int
    private(set) var groups: [Key: [AuditFinding]] = [:]

    init(capacity: Int) { self.capacity = capacity }

    /// Keeps `finding` when its group has room or it has more issues than the group's last line.
    mutating func add(_ finding: AuditFinding) {
        let key = Key(instant: finding.instant, kind: finding.kind, product: ExactKey(finding.product))
        let count = finding.issues.count
        if let list = groups[key], list.count >= capacity, let last = list.last, last.issues.count >= count { return }
        // The list is ordered by issue count, most first: insert after every line with at least as many.
        var low = 0
        var high = groups[key]?.count ?? 0
        while low < high {
            let middle = (low + high) / 2
            if groups[key]![middle].issues.count >= count { low = middle + 1 } else { high = middle }
        }
        groups[key, default: []].insert(finding, at: low)
        if groups[key]!.count > capacity { groups[key]!.removeLast() }
    }
}
