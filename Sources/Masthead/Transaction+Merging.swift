extension Transaction {
    /// Combines two copies of the same transaction so that the result does not depend on which
    /// copy came first, nor on how copies were grouped before (R2.3, R2.8).
    ///
    /// Of signed copies, the one Apple signed last gives the state; copies signed at the same
    /// instant combine field by field. Unsigned copies combine field by field (the earliest
    /// purchase and cancellation, the latest expiry, a flag set when any copy sets it); next to a
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
        result.cancellation = Transaction.earliest(cancellation, other.cancellation)
        result.unsignedCancellation = Transaction.earliest(unsignedCancellation, other.unsignedCancellation)
        result.isUpgraded = isUpgraded || other.isUpgraded
        result.isTrial = isTrial || other.isTrial
        result.isIntroductoryOffer = isIntroductoryOffer || other.isIntroductoryOffer
        result.offer = Transaction.earliest(offer, other.offer)
        if other.originalTransactionId.precedesInBytes(result.originalTransactionId) { result.originalTransactionId = other.originalTransactionId }
        if other.productId.precedesInBytes(result.productId) { result.productId = other.productId }
        return result
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
