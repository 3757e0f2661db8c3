import Glibc
import Masthead
import MastheadStorage
import Synchronization

/// Users' answers to the download check, kept per user: per publication and environment the last
/// entitlement (only what deciding and explaining an issue reads, ``KeptEntitlement``), and per
/// issue the check's body. A user's purchase history is not kept: it is read from the store when
/// an answer is computed.
///
/// Users are told apart by their ids' exact bytes, as the store tells them apart. Every
/// invalidation starts a new ``Epoch``: what was read from the store, or computed, before it is
/// put only if no invalidation came since (``put(_:for:_:at:)`` and its kin), so a load that raced
/// a write is never kept. At most `maxUsers` users are kept: when full, a new user takes the place
/// of one not used since the clock hand last passed it (CLOCK, or second chance: every lookup
/// marks its user used, the hand clears the marks it passes and stops at the first user
/// unmarked), so readers asked again and again stay while readers asked once make way, at a
/// constant cost per access. A new user starts unmarked: a scan of readers asked once evicts
/// only them.
///
/// Check bodies are a shortcut (an answer whose body is not kept is written from the kept answer)
/// and have a budget of their own: every user's bodies together take at most `maxCheckBytes`
/// bytes of heap, counted as glibc lays them out (``checkBytes``: each body's arrays by their
/// capacity, an array shared by several bodies once, the user's list of bodies by its capacity,
/// the keys' strings that do not fit inline). When a new body passes the budget, bodies make way
/// by a second CLOCK over the bodies, user after user in the order of their slots and each
/// user's bodies in the order they were put: every lookup that finds a body marks it, the body
/// hand clears the marks it passes and drops the first body it finds unmarked, until the bodies
/// fit. A new body starts unmarked. A body that alone would take more than the budget is not
/// kept. Each user also keeps at most ``maxChecksPerUser`` bodies (when full, a new one takes the
/// place of the one put first), which bounds the search through a user's bodies; their ends (after
/// the `at` value) share one array where they are the same bytes, as they are for issues
/// readable, or not, for the same reasons.
/// Kept answers share their arrays of reasons naming no purchase or grant (periods, streaming,
/// free issues) with every other answer readable for the same reasons (at most
/// ``maxSharedReasons`` such arrays are kept for sharing).
final class HistoryCache: Sendable {
    /// When a read began, as the cache counts invalidations.
    struct Epoch: Equatable, Sendable {
        fileprivate let value: UInt64
    }

    /// Which publication and environment a cached answer is for.
    struct AnswerKey: Hashable, Sendable {
        var publicationId: ExactKey
        var environment: Environment
    }

    /// Which check a cached body answers (no string is built to look one up).
    struct CheckKey: Hashable, Sendable {
        var publicationId: ExactKey
        var environment: Environment
        var issueId: ExactKey
    }

    /// A download check's body without its `at` value, the only part that changes within `stable`.
    struct Check: Sendable {
        var stable: Range<Instant>
        /// The body's bytes before its `at` value (the user, publication and issue).
        var head: [UInt8]
        /// The body's bytes after its `at` value (the decision and its explanation): a user's
        /// checks whose ends are the same bytes share one array.
        var tail: [UInt8]
        /// Whether it answers the issue readable.
        var readable: Bool
        /// The code of its main reason (its `"reason"`'s `kind`), which the gate answers in a header.
        var reason: String
        /// Whether its answer was noted as served (consumption information), so that the answers
        /// reusing it need not note it again.
        var served = false
        /// Whether a lookup found it since the body hand last passed it (the cache's CLOCK over bodies).
        var used = false

        /// A body whose `at` value lies at `at`.
        init(stable: Range<Instant>, body: [UInt8], at: Range<Int>, readable: Bool, reason: String) {
            self.stable = stable
            head = Array(body[..<at.lowerBound])
            tail = Array(body[at.upperBound...])
            self.readable = readable
            self.reason = reason
        }

        /// Whether the other body's end is the same bytes (compared with `memcmp`).
        func endsAlike(_ other: Check) -> Bool {
            tail.withUnsafeBytes { mine in
                other.tail.withUnsafeBytes { theirs in mine.count == theirs.count && (mine.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0) }
            }
        }

        /// The body with `at` put in.
        func body(at: Instant) -> [UInt8] {
            var body: [UInt8] = []
            body.reserveCapacity(head.count + tail.count + 24)
            body.append(contentsOf: head)
            body.append(contentsOf: at.description.utf8)
            body.append(contentsOf: tail)
            return body
        }
    }

    /// Check bodies kept per user (the issues a reader downloads); when full, a new one takes the
    /// place of the one put first.
    static let maxChecksPerUser = 16

    /// The heap bytes a body would take as its user's only one (its arrays, its key's strings and
    /// a list of one entry): more than the budget, and it is not kept.
    static func bytesAlone(_ check: Check, _ key: CheckKey) -> Int {
        HeapBytes.array(of: (key: CheckKey, value: Check).self, capacity: 1) + SmallMap<CheckKey, Check>.bytes(of: key)
            + HeapBytes.array(check.head) + HeapBytes.array(check.tail)
    }

    /// Distinct arrays of reasons kept for answers to share (``SharedReasons``).
    static let maxSharedReasons = 4_096

    private struct User {
        /// Per publication and environment: the last answer, reused while the as-of instant stays in its stable range.
        var answers = SmallMap<AnswerKey, KeptEntitlement>()
        /// Per publication, environment and issue: the download check's answer body, reused while
        /// the as-of instant stays in the stable range of the answer it was written from.
        var checks = SmallMap<CheckKey, Check>()
    }

    /// A place in the clock: a user, and whether they were used since the hand last passed.
    private struct Slot {
        var key: ExactKey
        var user: User
        var used = false
    }

    /// The users in the clock's slots, found by id; slots freed by invalidations are taken first.
    private struct State {
        var index: [ExactKey: Int] = [:]
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var hand = 0
        var epoch: UInt64 = 0
        /// The heap bytes every user's check bodies take (``SmallMap/checkBytes``).
        var checkBytes = 0
        /// The body hand: a slot, and a place in its user's bodies.
        var bodyHand = (slot: 0, check: 0)
        /// Arrays of reasons the kept answers share.
        var sharedReasons = SharedReasons(capacity: HistoryCache.maxSharedReasons)

        /// The user's slot, marked used; nil when not cached.
        mutating func use(_ key: ExactKey) -> Int? {
            guard let slot = index[key] else { return nil }
            slots[slot].used = true
            return slot
        }

        /// The user's slot: theirs when cached, else a new one for them (empty), in a free slot, in
        /// a new slot while fewer than `capacity`, or in place of the first unused user the hand
        /// comes to.
        mutating func slot(for key: ExactKey, capacity: Int) -> Int {
            if let slot = index[key] { return slot }
            let user = User()
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                slots[slot] = Slot(key: key, user: user)
            } else if slots.count < capacity {
                slot = slots.count
                slots.append(Slot(key: key, user: user))
            } else {
                // Every slot is taken: each pass clears a mark, so the hand stops within one turn.
                while slots[hand].used {
                    slots[hand].used = false
                    hand = (hand + 1) % slots.count
                }
                slot = hand
                index[slots[slot].key] = nil
                checkBytes -= slots[slot].user.checks.checkBytes
                slots[slot] = Slot(key: key, user: user)
                hand = (hand + 1) % slots.count
            }
            index[key] = slot
            return slot
        }

        /// Drops a user, freeing their slot (what they had is released at once).
        mutating func remove(_ key: ExactKey) {
            guard let slot = index.removeValue(forKey: key) else { return }
            checkBytes -= slots[slot].user.checks.checkBytes
            slots[slot] = Slot(key: ExactKey(""), user: User())
            freeSlots.append(slot)
        }

        /// Changes a user's check bodies, counting the bytes they take before and after.
        mutating func changeChecks(_ slot: Int, _ change: (inout SmallMap<CheckKey, Check>) -> Void) {
            let before = slots[slot].user.checks.checkBytes
            change(&slots[slot].user.checks)
            checkBytes += slots[slot].user.checks.checkBytes - before
        }

        /// Drops the bodies the body hand finds unmarked, clearing the marks it passes, until
        /// every body fits in `budget` bytes. Each step clears a mark, drops a body or passes a
        /// user's last body, and bodies remain while their bytes do: within two turns of the
        /// slots the bodies fit.
        mutating func fitChecks(in budget: Int) {
            while checkBytes > budget {
                if bodyHand.slot >= slots.count { bodyHand = (0, 0) }
                let slot = bodyHand.slot
                if bodyHand.check >= slots[slot].user.checks.count {
                    bodyHand = (slot + 1, 0)
                } else if slots[slot].user.checks[position: bodyHand.check].value.used {
                    slots[slot].user.checks[position: bodyHand.check].value.used = false
                    bodyHand.check += 1
                } else {
                    let position = bodyHand.check
                    changeChecks(slot) { $0.remove(at: position) }
                }
            }
        }
    }

    private let state = Mutex(State())
    private let maxUsers: Int
    private let maxCheckBytes: Int

    /// A cache keeping at most `maxUsers` users, whose check bodies take at most `maxCheckBytes`
    /// bytes together (0: no body is kept).
    init(maxUsers: Int, maxCheckBytes: Int) {
        self.maxUsers = maxUsers
        self.maxCheckBytes = maxCheckBytes
    }

    /// How many users it holds (the `masthead_cached_users` metric).
    var userCount: Int { state.withLock { $0.index.count } }

    /// The heap bytes every user's check bodies take, at most `maxCheckBytes` (the
    /// `masthead_cached_check_bytes` metric).
    var checkBytes: Int { state.withLock { $0.checkBytes } }

    // MARK: Get

    /// The user's last answer for a publication and environment, if any, and the epoch now.
    func answer(_ user: ExactKey, _ key: AnswerKey) -> (KeptEntitlement?, Epoch) {
        state.withLock { state in (state.use(user).flatMap { state.slots[$0].user.answers[key] }, Epoch(value: state.epoch)) }
    }

    /// The user's check body for an issue, if any (marked used), and the epoch now.
    func check(_ user: ExactKey, _ key: CheckKey) -> (Check?, Epoch) {
        state.withLock { state in
            let epoch = Epoch(value: state.epoch)
            guard let slot = state.use(user) else { return (nil, epoch) }
            return (state.slots[slot].user.checks.update(key) { $0.used = true }, epoch)
        }
    }

    // MARK: Put

    /// Keeps an answer computed at `epoch` (from a history read after it), unless the cache was
    /// invalidated since, its reasons shared with other answers'; a user not cached takes, when
    /// full, the place of the first user the clock hand finds unused.
    func put(_ answer: KeptEntitlement, for user: ExactKey, _ key: AnswerKey, at epoch: Epoch) {
        state.withLock { state in
            guard state.epoch == epoch.value else { return }
            var answer = answer
            answer.shareReasons { state.sharedReasons.shared($0) }
            let slot = state.slot(for: user, capacity: maxUsers)
            state.slots[slot].user.answers[key] = answer
        }
    }

    /// Keeps a check body written at `epoch` for a user who is cached, unless the cache was
    /// invalidated since or it alone would take more than `maxCheckBytes`: its end shares the
    /// array of another of the user's bodies ending in the same bytes; a new issue takes the place
    /// of the one put first when the user has ``maxChecksPerUser`` bodies; then, while the bodies
    /// take more than `maxCheckBytes`, the body hand drops bodies not asked for since it last
    /// passed them.
    func put(_ check: Check, for user: ExactKey, _ key: CheckKey, at epoch: Epoch) {
        guard HistoryCache.bytesAlone(check, key) <= maxCheckBytes else { return }
        state.withLock { state in
            guard state.epoch == epoch.value, let slot = state.index[user] else { return }
            var check = check
            if let same = state.slots[slot].user.checks.firstValue(where: { $0.endsAlike(check) }) { check.tail = same.tail }
            state.changeChecks(slot) { checks in
                if checks.count >= HistoryCache.maxChecksPerUser && checks[key] == nil { checks.removeFirstAdded() }
                checks[key] = check
            }
            state.fitChecks(in: maxCheckBytes)
        }
    }

    /// Marks a cached check as noted served; nothing when it is no longer cached.
    func markServed(_ user: ExactKey, _ key: CheckKey) {
        state.withLock { state in
            guard let slot = state.index[user] else { return }
            _ = state.slots[slot].user.checks.update(key) { $0.served = true }
        }
    }

    // MARK: Invalidate

    /// Drops what the users of the changes (a committed write's, or the change log's) had.
    func invalidate(_ changes: [Change]) {
        invalidate(users: changes.compactMap { change in
            if case .user(let userId) = change { return userId }
            return nil
        })
    }

    /// Drops what these users had.
    func invalidate(users: [String]) {
        state.withLock { state in
            state.epoch += 1
            for user in users { state.remove(ExactKey(user)) }
        }
    }

    /// Drops every answer and check body (their users keep their places): the catalog changed.
    func invalidateAnswers() {
        state.withLock { state in
            state.epoch += 1
            for slot in state.slots.indices {
                state.slots[slot].user.answers.removeAll()
                state.slots[slot].user.checks.removeAll()
            }
            state.checkBytes = 0
        }
    }

    /// Drops everything: what changed cannot be told.
    func removeAll() {
        state.withLock { state in
            state.epoch += 1
            state = State(epoch: state.epoch)
        }
    }
}

extension SmallMap<HistoryCache.CheckKey, HistoryCache.Check> {
    /// The heap bytes a user's check bodies take: the list of them (its capacity), each body's
    /// arrays (their capacity; an array several bodies share, once) and the strings of its key
    /// that do not fit inline. A body's reason is a name from a fixed set, kept in the program.
    var checkBytes: Int {
        var bytes = heapBytes
        for position in 0..<count {
            let (key, check) = self[position: position]
            bytes += Self.bytes(of: key) + HeapBytes.array(check.head)
            let tail = check.tail.withUnsafeBytes { $0.baseAddress }
            let shared = (0..<position).contains { self[position: $0].value.tail.withUnsafeBytes { $0.baseAddress } == tail }
            if !shared { bytes += HeapBytes.array(check.tail) }
        }
        return bytes
    }

    /// The heap bytes a check's key holds: its ids' strings that do not fit inline.
    static func bytes(of key: HistoryCache.CheckKey) -> Int {
        HeapBytes.string(key.publicationId.text) + HeapBytes.string(key.issueId.text)
    }
}
