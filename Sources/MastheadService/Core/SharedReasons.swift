import Masthead

/// Arrays of reasons naming no purchase or grant (a period's number, a streaming window, a free
/// issue: alike for many readers), each kept once for the cached answers readable for them to
/// share; at most `capacity` of them, so that the set stays bounded whatever the answers.
struct SharedReasons {
    private var arrays: [[AccessReason]: [AccessReason]] = [:]
    /// The most arrays kept.
    let capacity: Int

    /// A set keeping at most `capacity` arrays.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// How many arrays it keeps.
    var count: Int { arrays.count }

    /// The array kept for these reasons when they name no purchase or grant (kept now when new,
    /// while fewer than `capacity` are); else `reasons` itself.
    mutating func shared(_ reasons: [AccessReason]) -> [AccessReason] {
        guard reasons.allSatisfy(SharedReasons.namesNoPurchaseOrGrant) else { return reasons }
        if let same = arrays[reasons] { return same }
        if arrays.count < capacity { arrays[reasons] = reasons }
        return reasons
    }

    /// Whether a reason names no purchase or grant, whose ids differ from reader to reader.
    private static func namesNoPurchaseOrGrant(_ reason: AccessReason) -> Bool {
        switch reason {
        case .publishedDuringPeriod, .unlockedAtPeriodStart, .streaming, .free: true
        case .singlePurchase, .granted: false
        }
    }
}
