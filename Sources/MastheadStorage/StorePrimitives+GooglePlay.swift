public import Masthead

/// Google Play purchases (R18), once for every backend: each read of a purchase token, its orders,
/// its chain of tokens through `linkedPurchaseToken`, its user, its voided orders, its
/// acknowledgement, and the Pub/Sub messages already received. Tokens, order ids and message ids
/// are their exact bytes.
///
/// Every write (a read stored, a link, a void, a Pub/Sub message id, an acknowledgement's claim
/// or outcome) takes the purchases table's lock first, before any other statement of its own
/// (``StorePrimitives/lockForNumbering(_:)``: PostgreSQL's table lock, nothing on SQLite whose
/// writer excludes the others), so that a chain is read and rewritten by one connection at a
/// time (two tokens of a chain stored at once by two instances still end with one chain id and
/// one user) and no two Google Play writes wait on each other's rows and locks the other way
/// round. The service's group commit may run other writes before it in the same transaction:
/// should two instances' transactions then deadlock, PostgreSQL rolls one back and its writes
/// run again one by one.
///
/// A token whose read names an `obfuscatedExternalAccountId` (kept as `account_id`) is that
/// user's or nobody's: it is linked to that user when stored, and never given another (R18).
extension StorePrimitives {
    public func lockGooglePlayPurchases() throws(StorageError) {
        try lockForNumbering(GooglePlaySQL.purchasesTable)
    }

    public func storeGooglePlayObservation(
        _ observation: GooglePlayObservation, packageName: String, kind: GooglePlayPurchaseKind, body: [UInt8], now: Instant
    ) throws(StorageError) -> [String] {
        try inWrite { () throws(StorageError) -> [String] in
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            var observation = observation
            let token = observation.purchaseToken
            // The link that would close a cycle through the stored tokens is not stored (R18).
            if let linked = observation.linkedPurchaseToken, try googlePlayLinks(from: linked, leadTo: token) {
                observation.linkedPurchaseToken = nil
            }
            let stored = try googlePlayPurchase(token: token)
            let newest = stored.map { now >= $0.lastRead } ?? true
            if newest {
                try writeGooglePlayPurchase(observation, stored: stored, packageName: packageName, kind: kind, body: body, now: now)
            } else if observation.acknowledged, stored?.acknowledged == false {
                try run(GooglePlaySQL.acknowledged, [.text(token), .integer(0)])
            }
            var changed = try storeGooglePlayOrders(observation.orders, token: token, updatingExpiries: newest)
            var users: Set<ExactKey> = []
            let chain = try relinkGooglePlayChain(containing: token, now: now)
            changed = chain.changed || changed
            if changed { users.formUnion(chain.users) }
            // A token moved to another predecessor leaves its former chain, whose id may change.
            if newest, let former = stored?.linkedPurchaseToken, !former.sameBytes(as: observation.linkedPurchaseToken ?? ""),
                try googlePlayPurchase(token: former) != nil
            {
                let formerChain = try relinkGooglePlayChain(containing: former, now: now)
                if formerChain.changed { users.formUnion(formerChain.users) }
            }
            return users.sorted().map(\.text)
        }
    }

    public func linkGooglePlayPurchase(token: String, to userId: String) throws(StorageError) -> GooglePlayLink {
        try inWrite { () throws(StorageError) -> GooglePlayLink in
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            guard let stored = try googlePlayPurchase(token: token) else { return .unknownToken }
            let user = ExactKey(userId)
            if let account = stored.obfuscatedExternalAccountId.map(ExactKey.init), account != user { return .conflict(owner: account.text) }
            if let owner = stored.userId.map(ExactKey.init), owner != user { return .conflict(owner: owner.text) }
            let members = try googlePlayChain(containing: token)
            let others = Self.googlePlayClaimants(members).subtracting([user])
            // An unnamed token follows its chain: it is not the user's while the chain is another's.
            if stored.obfuscatedExternalAccountId == nil, let other = others.sorted().first { return .conflict(owner: other.text) }
            // The user's now: this token, the tokens naming the user, and the unnamed ones when the chain names nobody else.
            let taken = members.filter { member in
                member.userId == nil && (member.token == ExactKey(token) || member.accountId == user || (member.accountId == nil && others.isEmpty))
            }
            if taken.isEmpty { return .alreadyLinked }
            // A user first seen here is recorded as of the token's newest read (no clock is read here).
            let link = try prepare(GooglePlaySQL.linkUser)
            for member in taken { try linkGooglePlayToken(member.token.text, to: userId, firstSeen: stored.lastRead, link) }
            return .linked
        }
    }

    public func voidGooglePlayOrder(token: String, orderId: String, at: Instant, prorated: Bool, now: Instant) throws(StorageError) -> [String] {
        try inWrite { () throws(StorageError) -> [String] in
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            try run(GooglePlaySQL.pruneVoids, [.integer(now.milliseconds - GooglePlayVoids.retentionMilliseconds)])
            try run(GooglePlaySQL.insertVoid, [.text(token), .text(orderId), .integer(at.milliseconds), .bool(prorated), .integer(now.milliseconds)])
            guard try run(GooglePlaySQL.voidOrder, [.text(token), .text(orderId), .integer(at.milliseconds), .bool(prorated)]) > 0,
                let userId = try googlePlayPurchase(token: token)?.userId
            else { return [] }
            return [userId]
        }
    }

    public func recordGooglePlayMessage(_ messageId: String, now: Instant) throws(StorageError) -> Bool {
        try inWrite { () throws(StorageError) -> Bool in
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            try run(GooglePlaySQL.pruneMessages, [.integer(now.milliseconds - GooglePlayMessages.retentionMilliseconds)])
            return try run(GooglePlaySQL.insertMessage, [.text(messageId), .integer(now.milliseconds)]) == 1
        }
    }

    public func recordGooglePlayAcknowledgement(token: String, outcome: GooglePlayAcknowledgement, now: Instant) throws(StorageError) {
        try inWrite { () throws(StorageError) in
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            switch outcome {
            case .acknowledged:
                try run(GooglePlaySQL.acknowledged, [.text(token), .integer(1)])
            case .failed(let reason):
                guard let stored = try googlePlayPurchase(token: token), !stored.acknowledged else { return }
                let attempts = stored.acknowledgementAttempts + 1
                let next = now.adding(milliseconds: GooglePlayAcknowledgement.retryDelayMilliseconds(afterAttempts: attempts))
                try run(
                    GooglePlaySQL.acknowledgementFailed,
                    [.text(token), .integer(Int64(attempts)), .integer(next.milliseconds), .text(RejectedNotification.keptReason(reason))])
            case .givenUp(let reason):
                try run(GooglePlaySQL.acknowledgementGivenUp, [.text(token), .text(RejectedNotification.keptReason(GooglePlayAcknowledgement.givenUpPrefix + reason))])
            }
        }
    }

    public func claimGooglePlayAcknowledgement(now: Instant, leaseUntil: Instant) throws(StorageError) -> StoredGooglePlayPurchase? {
        try inWrite { () throws(StorageError) -> StoredGooglePlayPurchase? in
            // The purchases' lock first, as every Google Play write: of two instances claiming at
            // once, the second waits and then finds the first's purchase claimed.
            try lockForNumbering(GooglePlaySQL.purchasesTable)
            guard
                var due = try firstRow(GooglePlaySQL.firstDue, [.integer(now.milliseconds)], { row throws(Row.Failure) in try row.googlePlayPurchase() })
            else { return nil }
            // Taken only while still due.
            guard try run(GooglePlaySQL.claim, [.text(due.purchaseToken), .integer(leaseUntil.milliseconds), .integer(now.milliseconds)]) == 1 else { return nil }
            due.nextAcknowledgement = leaseUntil
            return due
        }
    }

    public func googlePlayPurchase(token: String) throws(StorageError) -> StoredGooglePlayPurchase? {
        try firstRow(GooglePlaySQL.purchase, [.text(token)]) { row throws(Row.Failure) in try row.googlePlayPurchase() }
    }

    public func googlePlayOrders(token: String) throws(StorageError) -> [GooglePlayOrder] {
        try rows(GooglePlaySQL.orders, [.text(token)]) { row throws(Row.Failure) in try row.googlePlayOrder() }
    }

    public func googlePlayUnacknowledged(dueBy: Instant, limit: Int) throws(StorageError) -> [StoredGooglePlayPurchase] {
        try rows(GooglePlaySQL.unacknowledged, [.integer(dueBy.milliseconds), .integer(Int64(limit))]) { row throws(Row.Failure) in
            try row.googlePlayPurchase()
        }
    }

    public func googlePlayUnacknowledgedCount(olderThan: Instant) throws(StorageError) -> Int {
        Int(try firstRow(GooglePlaySQL.unacknowledgedCount, [.integer(olderThan.milliseconds)]) { row throws(Row.Failure) in try row.integer(0) } ?? 0)
    }

    /// The orders of the Google Play purchases linked to a user as the engine's transactions, as
    /// R18 chains them (``GooglePlayTokenOrders/transactions(_:)``: the chain named by the first
    /// order of its first token the user holds, a replaced token ending where the next starts).
    func googlePlayTransactions(forUser userId: String) throws(StorageError) -> [Transaction] {
        let rows = try rows(GooglePlaySQL.userOrders, [.text(userId)]) { row throws(Row.Failure) in
            (linked: try row.optionalText(9), order: try row.googlePlayOrder())
        }
        if rows.isEmpty { return [] }
        var tokens: [GooglePlayTokenOrders] = []
        for row in rows {
            if let last = tokens.last, last.purchaseToken.sameBytes(as: row.order.purchaseToken) {
                tokens[tokens.count - 1].orders.append(row.order)
            } else {
                tokens.append(GooglePlayTokenOrders(purchaseToken: row.order.purchaseToken, linkedPurchaseToken: row.linked, orders: [row.order]))
            }
        }
        return GooglePlayTokenOrders.transactions(tokens)
    }

    // MARK: Writing a read

    /// Inserts or updates the purchase row with what the newest read says; the acknowledgement
    /// owed keeps its due time (and backoff) while it stays owed.
    private func writeGooglePlayPurchase(
        _ observation: GooglePlayObservation, stored: StoredGooglePlayPurchase?, packageName: String, kind: GooglePlayPurchaseKind, body: [UInt8],
        now: Instant
    ) throws(StorageError) {
        let acknowledged = observation.acknowledged || stored?.acknowledged == true
        // An acknowledgement given up stays so: Google will not take it.
        let givenUp = stored.map { $0.nextAcknowledgement == nil && $0.acknowledgementError?.hasPrefix(GooglePlayAcknowledgement.givenUpPrefix) == true } ?? false
        let owed = !acknowledged && !givenUp && Self.owesAcknowledgement(observation.state)
        let nextAcknowledgement = owed ? (stored?.nextAcknowledgement ?? now) : nil
        let environment = observation.orders.first?.environment ?? stored?.environment ?? .production
        let values: [Value] = [
            .text(observation.purchaseToken), .text(packageName), .text(kind.rawValue), .text(observation.playProductId),
            .optional(observation.linkedPurchaseToken), .text(observation.state.word), .bool(acknowledged), .text(environment.rawValue),
            .integer(now.milliseconds), .bytes(body), .optional(nextAcknowledgement?.milliseconds), .optional(observation.obfuscatedExternalAccountId),
        ]
        try run(stored == nil ? GooglePlaySQL.insertPurchase : GooglePlaySQL.updatePurchase, values)
    }

    /// Whether a purchase in `state`, unacknowledged, is owed an acknowledgement: not while
    /// pending, nor once expired or cancelled before it was paid.
    static func owesAcknowledgement(_ state: GooglePlaySubscriptionState) -> Bool {
        switch state {
        case .active, .inGracePeriod, .canceled, .onHold, .paused, .oneTimePurchased: true
        default: false
        }
    }

    /// Adds the orders not stored yet (with the voids recorded for them, if any) and, for the
    /// newest read, updates the expiry of those stored with another; the refunds an order is
    /// given (its reads', its voids') combine as ``GooglePlayOrder/refunding(at:prorated:)``
    /// says. Answers whether anything changed.
    private func storeGooglePlayOrders(_ orders: [GooglePlayOrder], token: String, updatingExpiries: Bool) throws(StorageError) -> Bool {
        let storedOrder = try prepare(GooglePlaySQL.order)
        let pendingVoid = try prepare(GooglePlaySQL.void)
        let insert = try prepare(GooglePlaySQL.insertOrder)
        let updateExpiry = try prepare(GooglePlaySQL.updateExpiry)
        let refund = try prepare(GooglePlaySQL.voidOrder)
        var changed = false
        for order in orders {
            let key: [Value] = [.text(token), .text(order.orderId)]
            guard let stored = try firstRow(storedOrder, key, { row throws(Row.Failure) in try row.googlePlayOrder() }) else {
                let voids = try rows(pendingVoid, key) { row throws(Row.Failure) in (at: try row.instant(0), prorated: try row.bool(1)) }
                let voided = voids.reduce(order) { order, void in order.refunding(at: void.at, prorated: void.prorated) }
                try run(
                    insert,
                    key + [
                        .text(order.productId), .integer(order.start.milliseconds), .optional(order.expiry?.milliseconds), .text(order.environment.rawValue),
                        .optional(voided.refunded?.milliseconds), .bool(voided.refundIsProrated), .integer(order.observed.milliseconds),
                    ])
                changed = true
                continue
            }
            if updatingExpiries, stored.expiry != order.expiry {
                try run(updateExpiry, key + [.optional(order.expiry?.milliseconds)])
                changed = true
            }
            if let refunded = order.refunded {
                let voided = stored.refunding(at: refunded, prorated: order.refundIsProrated)
                if voided.refunded != stored.refunded || voided.refundIsProrated != stored.refundIsProrated {
                    try run(refund, key + [.integer(refunded.milliseconds), .bool(order.refundIsProrated)])
                    changed = true
                }
            }
        }
        return changed
    }

    // MARK: Chains

    /// A token of a chain, with its user, the user its read names and its chain id as stored.
    private typealias ChainMember = (token: ExactKey, userId: ExactKey?, accountId: ExactKey?, chainId: String?)

    /// The users a chain's tokens are linked to or name.
    private static func googlePlayClaimants(_ members: [ChainMember]) -> Set<ExactKey> {
        Set(members.compactMap(\.userId)).union(members.compactMap(\.accountId))
    }

    /// Links a token with no user to `userId` (recorded, as of `firstSeen`, when new), unless its
    /// read names another user; `link` is ``GooglePlaySQL/linkUser`` prepared.
    private func linkGooglePlayToken(_ token: String, to userId: String, firstSeen: Instant, _ link: Prepared) throws(StorageError) {
        try run(WritingSQL.insertUser, [.text(userId), .integer(firstSeen.milliseconds)])
        try run(link, [.text(token), .text(userId)])
    }

    /// Whether following `linkedPurchaseToken` from `start` through the stored tokens reaches `token`.
    private func googlePlayLinks(from start: String, leadTo token: String) throws(StorageError) -> Bool {
        let linked = try prepare(GooglePlaySQL.linked)
        var current = start
        var seen: Set<ExactKey> = []
        while seen.insert(ExactKey(current)).inserted {
            if current.sameBytes(as: token) { return true }
            guard let next = try firstRow(linked, [.text(current)], { row throws(Row.Failure) in try row.optionalText(0) }) ?? nil else { return false }
            current = next
        }
        return false
    }

    /// The stored tokens of `token`'s chain: from its root (the first whose linked token is not
    /// stored), every token linking to one already found, in the order found (successors by token bytes).
    private func googlePlayChain(containing token: String) throws(StorageError) -> [ChainMember] {
        let linked = try prepare(GooglePlaySQL.linked)
        var root = token
        var seen: Set<ExactKey> = [ExactKey(token)]
        while let next = try firstRow(linked, [.text(root)], { row throws(Row.Failure) in try row.optionalText(0) }) ?? nil,
            try firstRow(linked, [.text(next)], { _ in true }) == true, seen.insert(ExactKey(next)).inserted
        {
            root = next
        }
        let member = try prepare(GooglePlaySQL.chainMember)
        let successors = try prepare(GooglePlaySQL.successors)
        let read = { (row: Row) throws(Row.Failure) -> ChainMember in
            (ExactKey(try row.text(0)), try row.optionalText(1).map(ExactKey.init), try row.optionalText(2).map(ExactKey.init), try row.optionalText(3))
        }
        guard let first = try firstRow(member, [.text(root)], read) else { return [] }
        var members = [first]
        var found: Set<ExactKey> = [first.token]
        var index = 0
        while index < members.count {
            for next in try rows(successors, [.text(members[index].token.text)], read) where found.insert(next.token).inserted {
                members.append(next)
            }
            index += 1
        }
        return members
    }

    /// Gives every token of `token`'s chain the chain's id (the first order of its first token
    /// that has one: the earliest start, then the smallest order id in bytes; nil without
    /// orders), and a user to those that have none: a token whose read names a user
    /// (`obfuscatedExternalAccountId`) that user; an unnamed one the chain's user when the
    /// chain's tokens are linked to or name one user between them, else none (R18). Users first
    /// seen here are recorded as of `now`. Answers whether a row changed, and the chain's users.
    private func relinkGooglePlayChain(containing token: String, now: Instant) throws(StorageError) -> (changed: Bool, users: [ExactKey]) {
        let members = try googlePlayChain(containing: token)
        let firstOrder = try prepare(GooglePlaySQL.firstOrder)
        var chainId: String?
        for member in members where chainId == nil {
            chainId = try firstRow(firstOrder, [.text(member.token.text)]) { row throws(Row.Failure) in try row.text(0) }
        }
        let claimants = Self.googlePlayClaimants(members)
        let owner = claimants.count == 1 ? claimants.first : nil
        let update = try prepare(GooglePlaySQL.relink)
        let link = try prepare(GooglePlaySQL.linkUser)
        var users = Set(members.compactMap(\.userId))
        var changed = false
        for member in members {
            let sameChain = member.chainId.map { id in chainId.map { id.sameBytes(as: $0) } ?? false } ?? (chainId == nil)
            if !sameChain {
                try run(update, [.text(member.token.text), .optional(chainId)])
                changed = true
            }
            guard member.userId == nil, let user = member.accountId ?? owner else { continue }
            try linkGooglePlayToken(member.token.text, to: user.text, firstSeen: now, link)
            users.insert(user)
            changed = true
        }
        return (changed, users.sorted())
    }
}

/// The Pub/Sub message ids kept to apply each message once.
public enum GooglePlayMessages {
    /// How long a message id is kept: seven days, Pub/Sub's longest retention of an unacknowledged message.
    public static let retentionMilliseconds: Int64 = 7 * Instant.millisecondsPerDay
}

/// The voids kept for tokens never read.
public enum GooglePlayVoids {
    /// How long the void of a token never read is kept: 30 days, the window the Voided Purchases
    /// API lists; a void of a token read (stored) is kept for good.
    public static let retentionMilliseconds: Int64 = 30 * Instant.millisecondsPerDay
}

/// The statements of Google Play purchases.
enum GooglePlaySQL {
    /// The table whose lock serialises the writes of purchases and their chains.
    static let purchasesTable = "google_play_purchases"
    /// The columns `StoreRow.googlePlayPurchase()` reads.
    static let purchaseColumns = """
        purchase_token, package_name, kind, play_product_id, user_id, linked_purchase_token, chain_id, state, acknowledged, environment,
        observed_ms, read_ms, body, ack_attempts, ack_next_ms, ack_error, account_id
        """
    /// The columns `StoreRow.googlePlayOrder()` reads, each prefixed with `table`.
    static func orderColumns(_ table: String = "") -> String {
        ["purchase_token", "order_id", "product_id", "start_ms", "expiry_ms", "environment", "refunded_ms", "refund_prorated", "observed_ms"]
            .map { table + $0 }.joined(separator: ", ")
    }

    static let purchase = "SELECT \(purchaseColumns) FROM google_play_purchases WHERE purchase_token = $1"
    /// A new purchase ($1–$12: token, package, kind, product, linked token, state, acknowledged,
    /// environment, read instant, body, next acknowledgement, `obfuscatedExternalAccountId`), first read now.
    static let insertPurchase = """
        INSERT INTO google_play_purchases (purchase_token, package_name, kind, play_product_id, linked_purchase_token, state, acknowledged,
            environment, observed_ms, read_ms, body, ack_attempts, ack_next_ms, account_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, 0, $11, $12)
        """
    /// A stored purchase as the newest read gives it (the parameters of ``insertPurchase``).
    static let updatePurchase = """
        UPDATE google_play_purchases SET package_name = $2, kind = $3, play_product_id = $4, linked_purchase_token = $5, state = $6,
            acknowledged = $7, environment = $8, read_ms = $9, body = $10, ack_next_ms = $11, account_id = $12
        WHERE purchase_token = $1
        """
    /// A purchase ($1) acknowledged, $2 more attempts counted (1 for Masthead's, 0 when a read says so).
    static let acknowledged = """
        UPDATE google_play_purchases SET acknowledged = true, ack_next_ms = NULL, ack_error = NULL, ack_attempts = ack_attempts + $2
        WHERE purchase_token = $1
        """
    /// A failed acknowledgement of $1: attempts $2, next $3, error $4.
    static let acknowledgementFailed =
        "UPDATE google_play_purchases SET ack_attempts = $2, ack_next_ms = $3, ack_error = $4 WHERE purchase_token = $1 AND acknowledged = false"
    /// An acknowledgement of $1 given up: not due again, error $2; the attempt counted.
    static let acknowledgementGivenUp =
        "UPDATE google_play_purchases SET ack_attempts = ack_attempts + 1, ack_next_ms = NULL, ack_error = $2 WHERE purchase_token = $1 AND acknowledged = false"
    /// The acknowledgement due first at $1.
    static let firstDue = """
        SELECT \(purchaseColumns) FROM google_play_purchases WHERE ack_next_ms IS NOT NULL AND ack_next_ms <= $1
        ORDER BY ack_next_ms, purchase_token LIMIT 1
        """
    /// A due acknowledgement ($1) claimed until $2, while still due at $3.
    static let claim = "UPDATE google_play_purchases SET ack_next_ms = $2 WHERE purchase_token = $1 AND ack_next_ms IS NOT NULL AND ack_next_ms <= $3"
    static let unacknowledged = """
        SELECT \(purchaseColumns) FROM google_play_purchases WHERE ack_next_ms IS NOT NULL AND ack_next_ms <= $1
        ORDER BY ack_next_ms, purchase_token LIMIT $2
        """
    static let unacknowledgedCount = "SELECT count(*) FROM google_play_purchases WHERE ack_next_ms IS NOT NULL AND observed_ms < $1"
    /// The token a token ($1) links to (NULL when none); no row when $1 is not stored.
    static let linked = "SELECT linked_purchase_token FROM google_play_purchases WHERE purchase_token = $1"
    static let chainMember = "SELECT purchase_token, user_id, account_id, chain_id FROM google_play_purchases WHERE purchase_token = $1"
    static let successors =
        "SELECT purchase_token, user_id, account_id, chain_id FROM google_play_purchases WHERE linked_purchase_token = $1 ORDER BY purchase_token"
    /// A token's ($1) chain id ($2).
    static let relink = "UPDATE google_play_purchases SET chain_id = $2 WHERE purchase_token = $1"
    /// A token ($1) linked to a user ($2) when it has none and its read names no other user.
    static let linkUser = """
        UPDATE google_play_purchases SET user_id = $2 WHERE purchase_token = $1 AND user_id IS NULL AND (account_id IS NULL OR account_id = $2)
        """

    static let order = "SELECT \(orderColumns()) FROM google_play_orders WHERE purchase_token = $1 AND order_id = $2"
    static let orders = "SELECT \(orderColumns()) FROM google_play_orders WHERE purchase_token = $1 ORDER BY start_ms, order_id"
    /// The id of the first order of a token ($1).
    static let firstOrder = "SELECT order_id FROM google_play_orders WHERE purchase_token = $1 ORDER BY start_ms, order_id LIMIT 1"
    /// A new order ($1–$9 as ``orderColumns(_:)`` lists them).
    static let insertOrder = """
        INSERT INTO google_play_orders (\(orderColumns())) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
        """
    /// A stored order's ($1, $2) expiry ($3).
    static let updateExpiry = "UPDATE google_play_orders SET expiry_ms = $3 WHERE purchase_token = $1 AND order_id = $2"
    /// An order ($1, $2) refunded at $3, prorated when $4, with the line items it bought after its
    /// first (stored as `$2/playProductId`), which Google voids under the order's id; combined
    /// with a refund stored as ``GooglePlayOrder/refunding(at:prorated:)`` does (the earliest
    /// instant; partial only while every refund was), and only the rows it changes.
    static let voidOrder = """
        UPDATE google_play_orders
        SET refunded_ms = CASE WHEN refunded_ms IS NULL OR $3 < refunded_ms THEN $3 ELSE refunded_ms END,
            refund_prorated = CASE WHEN refunded_ms IS NULL THEN $4 ELSE refund_prorated AND $4 END
        WHERE purchase_token = $1 AND (order_id = $2 OR substr(order_id, 1, length($2) + 1) = $2 || '/')
            AND (refunded_ms IS NULL OR refunded_ms > $3 OR (refund_prorated AND NOT $4))
        """
    /// The orders of the tokens linked to a user ($1), each with the token its token replaced
    /// (column 9), by token (a token's orders together), start and order id.
    static let userOrders = """
        SELECT \(orderColumns("o.")), p.linked_purchase_token
        FROM google_play_purchases p JOIN google_play_orders o ON o.purchase_token = p.purchase_token
        WHERE p.user_id = $1 ORDER BY o.purchase_token, o.start_ms, o.order_id
        """

    /// A void of an order ($1, $2) at $3, prorated when $4, recorded at $5; combined with one
    /// recorded before as ``voidOrder`` combines refunds.
    static let insertVoid = """
        INSERT INTO google_play_voids (purchase_token, order_id, voided_ms, prorated, recorded_ms) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (purchase_token, order_id) DO UPDATE
        SET voided_ms = CASE WHEN excluded.voided_ms < google_play_voids.voided_ms THEN excluded.voided_ms ELSE google_play_voids.voided_ms END,
            prorated = google_play_voids.prorated AND excluded.prorated
        WHERE excluded.voided_ms < google_play_voids.voided_ms OR (google_play_voids.prorated AND NOT excluded.prorated)
        """
    /// Forgets the voids recorded before $1 of tokens never stored.
    static let pruneVoids = """
        DELETE FROM google_play_voids
        WHERE recorded_ms < $1 AND NOT EXISTS (SELECT 1 FROM google_play_purchases p WHERE p.purchase_token = google_play_voids.purchase_token)
        """
    /// The voids of an order ($1, $2), and of the order whose later line item it is (`orderId/playProductId`):
    /// when, and whether prorated.
    static let void = """
        SELECT voided_ms, prorated FROM google_play_voids
        WHERE purchase_token = $1 AND (order_id = $2 OR order_id || '/' = substr($2, 1, length(order_id) + 1))
        """

    static let pruneMessages = "DELETE FROM google_play_messages WHERE received_ms < $1"
    static let insertMessage = "INSERT INTO google_play_messages (message_id, received_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING"
}

extension StoreRow {
    /// The purchase whose columns a query selected as ``GooglePlaySQL/purchaseColumns`` lists them.
    func googlePlayPurchase() throws(Failure) -> StoredGooglePlayPurchase {
        let kindName = try text(2)
        guard let kind = GooglePlayPurchaseKind(rawValue: kindName) else {
            throw unexpected(2, value: kindName, expected: "a Google Play purchase kind (subscription or product)")
        }
        return StoredGooglePlayPurchase(
            purchaseToken: try text(0), packageName: try text(1), kind: kind, playProductId: try text(3), userId: try optionalText(4),
            obfuscatedExternalAccountId: try optionalText(16), linkedPurchaseToken: try optionalText(5), chainId: try optionalText(6), state: GooglePlaySubscriptionState(word: try text(7)), acknowledged: try bool(8),
            environment: try environment(9), observed: try instant(10), lastRead: try instant(11), body: try bytes(12),
            acknowledgementAttempts: Int(try integer(13)), nextAcknowledgement: try optionalInstant(14), acknowledgementError: try optionalText(15))
    }

    /// The order whose columns a query selected as ``GooglePlaySQL/orderColumns(_:)`` lists them.
    func googlePlayOrder() throws(Failure) -> GooglePlayOrder {
        GooglePlayOrder(
            purchaseToken: try text(0), orderId: try text(1), productId: try text(2), start: try instant(3), expiry: try optionalInstant(4),
            environment: try environment(5), refunded: try optionalInstant(6), refundIsProrated: try bool(7), observed: try instant(8))
    }
}
