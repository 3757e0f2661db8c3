extension RenewalInfo {
    /// Whether `a` is older than `b` (R2.7): ordered by evidence instant (infos without one
    /// first), then, at the same instant, by how far along a subscription's life each is
    /// (``stage``), then field by field, so that the order of any set of infos never depends
    /// on the order in which they arrived.
    static func isOlder(_ a: RenewalInfo, than b: RenewalInfo) -> Bool {
        if let order = compare(a.evidence, b.evidence) { return order }
        if a.stage != b.stage { return a.stage < b.stage }
        if a.environment != b.environment { return a.environment == .production }
        if let order = compare(a.originalTransactionId.map(ExactKey.init), b.originalTransactionId.map(ExactKey.init)) { return order }
        if let order = compare(a.productId.map(ExactKey.init), b.productId.map(ExactKey.init)) { return order }
        if let order = compare(a.autoRenewProductId.map(ExactKey.init), b.autoRenewProductId.map(ExactKey.init)) { return order }
        if let order = compare(a.autoRenewOn.map { $0 ? 1 : 0 }, b.autoRenewOn.map { $0 ? 1 : 0 }) { return order }
        if a.isInBillingRetry != b.isInBillingRetry { return !a.isInBillingRetry }
        if let order = compare(a.gracePeriodExpires, b.gracePeriodExpires) { return order }
        if let order = compare(a.expirationIntent, b.expirationIntent) { return order }
        return compare(a.terms, b.terms) ?? false
    }

    /// Whether `a` and `b` are the same info: equal, and their ids the same bytes (`==` on
    /// `String` takes canonically equivalent ids for one).
    public static func isSame(_ a: RenewalInfo, as b: RenewalInfo) -> Bool {
        func same(_ x: String?, _ y: String?) -> Bool { x.map(ExactKey.init) == y.map(ExactKey.init) }
        return a == b && same(a.originalTransactionId, b.originalTransactionId) && same(a.productId, b.productId)
            && same(a.autoRenewProductId, b.autoRenewProductId)
    }

    /// How far along a subscription's life the info is, for infos of the same evidence instant
    /// (receipts without change dates that hold the same latest transaction): 0 renewing, 1
    /// auto-renew turned off, 2 in billing retry, 3 expired (an expiration intent and no more
    /// retrying). The later stage counts as the newer state.
    var stage: Int {
        if isInBillingRetry { return 2 }
        if expirationIntent != nil { return 3 }
        return autoRenewOn == false ? 1 : 0
    }

    /// Whether `a < b`, nil first; nil when they are equal.
    private static func compare<Value: Comparable>(_ a: Value?, _ b: Value?) -> Bool? {
        switch (a, b) {
        case (nil, nil): return nil
        case (nil, _): return true
        case (_, nil): return false
        case (let a?, let b?): return a == b ? nil : a < b
        }
    }
}
