extension Transaction {
    /// Combines two copies of the same transaction so that the result does not depend on which
    /// copy came first, nor on how copies were grouped before (R2.3, R2.8).
    ///
    /// Of signed copies, the one Apple signed last gives the state, its terms included; copies
    /// signed at the same instant combine field by field (of differing terms, the first in
    /// ``PurchaseTerms``' order). Unsigned copies combine field by field (the earliest
    /// purchase and cancellation, the latest expiry, a flag set when any copy sets it; the
    /// revocation type and percentage go with the cancellation kept, R5.3); next to a
    /// signed copy only their cancellation is kept (``unsignedCancellation``). An upgrade is kept
    /// whichever copy reports it: Apple never undoes one.
    public func merged(with other: Transaction) -> Transaction {
        switch (signedDate, other.signedDate) {
        case (nil, nil):
            return combinedFieldByField(with: other)
        case (.some, nil):
            return absorbing(unsigned: other)
        case (nil, .some):
            return other.absorbing(unsigned: self)
        case (let mine?, let theirs?):
            var result = mine == theirs ? combinedFieldByField(with: other) : mine > theirs ? self : other
            result.unsignedCancellation = Transaction.earliest(unsignedCancellation, other.unsignedCancellation)
            result.isUpgraded = isUpgraded || other.isUpgraded
            return result
        }
    }

    /// This signed copy, with what an unsigned copy adds: its cancellation and its upgrade.
    private func absorbing(unsigned: Transaction) -> Transaction {
        var result = self
        result.unsignedCancellation = Transaction.earliest(unsignedCancellation, unsigned.cancellation)
        result.isUpgraded = isUpgraded || unsigned.isUpgraded
        return result
    }

    /// The field-by-field combination of R2.3 (for unsigned copies, and signed ones of one instant).
    private func combinedFieldByField(with other: Transaction) -> Transaction {
        var result = self
        result.purchase = min(purchase, other.purchase)
        result.expires = Transaction.latest(expires, other.expires)
        let revoked = Transaction.revocationPrecedes(other, self) ? other : self
        result.cancellation = revoked.cancellation
        result.revocationType = revoked.revocationType
        result.revocationPercentage = revoked.revocationPercentage
        result.unsignedCancellation = Transaction.earliest(unsignedCancellation, other.unsignedCancellation)
        result.isUpgraded = isUpgraded || other.isUpgraded
        result.isTrial = isTrial || other.isTrial
        result.isIntroductoryOffer = isIntroductoryOffer || other.isIntroductoryOffer
        result.offer = Transaction.earliest(offer, other.offer)
        // The first terms in their order (none last); kept as they are unless the other copy's come first.
        if let theirs = other.terms, terms.map({ theirs < $0 }) ?? true { result.terms = theirs }
        if other.originalTransactionId.precedesInBytes(result.originalTransactionId) { result.originalTransactionId = other.originalTransactionId }
        if other.productId.precedesInBytes(result.productId) { result.productId = other.productId }
        return result
    }

    /// Whether `a`'s revocation comes before `b`'s, for the field-by-field combination: the earlier
    /// cancellation (none comes last); at one instant a refund (R5.1) before a revocation that ends
    /// the transaction (R5.3), as the earliest cancellation wins (R2.3); then the type's bytes
    /// (none first) and the percentage (none first). A total order, so the choice depends on
    /// neither the order nor the grouping of copies.
    static func revocationPrecedes(_ a: Transaction, _ b: Transaction) -> Bool {
        switch (a.cancellation, b.cancellation) {
        case (nil, .some): return false
        case (.some, nil): return true
        case (let first?, let second?) where first != second: return first < second
        default: break
        }
        let aEnds = a.revocationType?.endsTransaction == true, bEnds = b.revocationType?.endsTransaction == true
        if aEnds != bEnds { return bEnds }
        switch (a.revocationType, b.revocationType) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (let first?, let second?) where first != second: return first.rawValue.precedesInBytes(second.rawValue)
        default: break
        }
        switch (a.revocationPercentage, b.revocationPercentage) {
        case (nil, .some): return true
        case (let first?, let second?): return first < second
        default: return false
        }
    }

    /// The smaller of two optional values; nil only when both are.
    static func earliest<Value: Comparable>(_ a: Value?, _ b: Value?) -> Value? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// The larger of two optional values; nil only when both are.
    static func latest<Value: Comparable>(_ a: Value?, _ b: Value?) -> Value? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }
}
