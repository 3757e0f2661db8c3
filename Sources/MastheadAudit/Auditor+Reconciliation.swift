import Masthead

/// Reconciliation: the grants of a (user, publication) line judged when they were served, and
/// sorted at each audit instant into over-granted, under-granted and held after the entitlement ended.
extension Auditor {
    /// A grant of a known issue with the engine's decision at the instant it was served.
    struct JudgedGrant {
        var grant: Grants.Grant
        /// The issue's index in the publication.
        var issueIndex: Int
        /// Why the reader could not read the issue when it was served; nil when they could, or
        /// when the grant has no `granted_at` (it is then judged at each audit instant).
        var deniedWhenServed: Denial?
    }

    /// What reconciliation found on one (user, publication) line at one instant, in publish order.
    struct Reconciliation {
        var over: [(issue: Issue, grantedAt: Instant?, denial: Denial)] = []
        var under: [ReadableIssue] = []
        var held: [(issue: Issue, grantedAt: Instant, denial: Denial)] = []
    }

    /// The grants of one publication with the engine's decision at the instant each was served
    /// (one evaluation per stretch of time in which the answer does not change). Grants of issues
    /// the publication does not have are reported and left out.
    mutating func judge(_ grants: [Grants.Grant], publication: Publication, history: PurchaseHistory) -> [JudgedGrant] {
        var judged: [JudgedGrant] = []
        var answer: PublicationEntitlement?
        for grant in grants.sorted(by: { ($0.grantedAt ?? .distantFuture, $0.line) < ($1.grantedAt ?? .distantFuture, $1.line) }) {
            guard let issueIndex = publication.index(ofIssue: grant.issue) else {
                grantProblems.append((grant.line, "publication \(grant.publication) has no issue \(grant.issue)"))
                summary.unknownGrantIssues += 1
                continue
            }
            var denied: Denial?
            if let at = grant.grantedAt {
                if answer.map({ !$0.stable.contains(at) }) ?? true {
                    answer = engine.evaluate(history, publication: publication, at: at, environment: environment)
                }
                if case .notReadable(let denial)? = answer?.asOf(at).access(toIssue: grant.issue) { denied = denial }
            }
            judged.append(JudgedGrant(grant: grant, issueIndex: issueIndex, deniedWhenServed: denied))
        }
        return judged.sorted { ($0.issueIndex, $0.grant.grantedAt ?? .distantFuture) < ($1.issueIndex, $1.grant.grantedAt ?? .distantFuture) }
    }

    /// Sorts the issues of one publication at the entitlement's instant: over-granted (a grant by
    /// then was made when the reader was not entitled: at `granted_at`, or at the instant for a
    /// grant without one), held after the entitlement ended (every grant was entitled when made,
    /// the issue is not readable now), under-granted (readable now, not served by then; free
    /// issues never are).
    mutating func reconcile(_ entitlement: PublicationEntitlement, _ judged: [JudgedGrant], instant: Int, userId: String) -> Reconciliation {
        var result = Reconciliation()
        var served = [Bool](repeating: false, count: entitlement.publication.issues.count)
        var position = 0
        while position < judged.count {
            // The grants of one issue made by the instant, earliest first.
            let issueIndex = judged[position].issueIndex
            var grants: [JudgedGrant] = []
            while position < judged.count && judged[position].issueIndex == issueIndex {
                if judged[position].grant.grantedAt.map({ $0 <= entitlement.at }) ?? true { grants.append(judged[position]) }
                position += 1
            }
            guard let first = grants.first else { continue }
            served[issueIndex] = true
            let issue = entitlement.publication.issues[issueIndex]
            if let leak = grants.first(where: { $0.deniedWhenServed != nil }), let denial = leak.deniedWhenServed {
                result.over.append((issue, leak.grant.grantedAt, denial))
            } else if case .notReadable(let denial)? = entitlement.access(toIssue: issue.id) {
                if grants.contains(where: { $0.grant.grantedAt == nil }) {
                    result.over.append((issue, nil, denial))
                } else if let grantedAt = first.grant.grantedAt {
                    result.held.append((issue, grantedAt, denial))
                }
            }
        }
        result.under = entitlement.readable.filter { entry in
            !entry.issue.isFree && !(entitlement.publication.index(ofIssue: entry.issue.id).map { served[$0] } ?? false)
        }
        let product = AuditSummary.productKey(entitlement)
        summary.count(.overGranted, product: product, instant: instant, result.over.count)
        summary.count(.underGranted, product: product, instant: instant, result.under.count)
        summary.count(.heldAfterEntitlementEnded, product: product, instant: instant, result.held.count)
        if collectsFindings {
            func keep(_ kind: GrantFinding, _ issues: [(issue: String, detail: String)]) {
                guard !issues.isEmpty else { return }
                findings.append(
                    AuditFinding(kind: kind, product: product, instant: instant, userId: userId, publication: entitlement.publication.id, issues: issues))
            }
            keep(.overGranted, result.over.map { ($0.issue.id, Self.served($0.grantedAt) + $0.denial.explanation) })
            keep(.underGranted, result.under.map { ($0.issue.id, $0.reasons[0].explanation(of: $0.issue, in: entitlement)) })
            keep(.heldAfterEntitlementEnded, result.held.map { ($0.issue.id, Self.served($0.grantedAt) + "now: " + $0.denial.explanation) })
        }
        return result
    }

    /// "served DATE: " for a dated grant, "" for one without a date.
    private static func served(_ instant: Instant?) -> String { instant.map { "served \(CivilTime.readable($0)) UTC: " } ?? "" }
}
