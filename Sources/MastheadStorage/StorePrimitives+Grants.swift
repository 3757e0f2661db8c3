public import Masthead

/// The publisher's grants (R17), once for every backend: a grant id names one grant of one user
/// across the store, and its bytes are its identity.
extension StorePrimitives {
    /// The stored copy is read (and locked until the transaction ends where writers run
    /// concurrently); a grant not stored yet is inserted with `ON CONFLICT DO NOTHING`, which waits
    /// for another connection inserting the same id to commit, whose grant is then read and
    /// judged as the stored one.
    public func putGrant(_ grant: Grant, userId: String, now: Instant) throws(StorageError) -> GrantWrite {
        try inWrite { () throws(StorageError) -> GrantWrite in
            try put(UserGrant(userId: userId, grant: grant), now: now, statements: try GrantStatements(self))
        }
    }

    public func revokeGrant(_ grantId: String, userId: String, now: Instant) throws(StorageError) -> (grant: Grant, write: GrantWrite)? {
        try inWrite { () throws(StorageError) -> (grant: Grant, write: GrantWrite)? in
            let statements = try GrantStatements(self)
            guard let stored = try firstRow(statements.stored, [.text(grantId)], { row throws(Row.Failure) in (try row.text(10), try row.grant()) }),
                stored.0.sameBytes(as: userId)
            else { return nil }
            var grant = stored.1
            if grant.revokedAt != nil { return (grant, .unchanged) }
            grant.revokedAt = now
            try run(statements.revoke, [.text(grantId), .integer(now.milliseconds)])
            return (grant, .changed)
        }
    }

    public func grants(forUser userId: String) throws(StorageError) -> [Grant] {
        try rows(GrantSQL.userGrants, [.text(userId)]) { row throws(Row.Failure) in try row.grant() }
    }

    /// Each entry is judged against the store as the entries before it left it, so an id given
    /// twice in a batch is added once and then changed or left unchanged.
    public func applyGrants(_ entries: [UserGrant], now: Instant, origin: Int64) throws(StorageError) -> [Result<GrantWrite, StorageError>] {
        try inWrite { () throws(StorageError) -> [Result<GrantWrite, StorageError>] in
            let statements = try GrantStatements(self)
            var results: [Result<GrantWrite, StorageError>] = []
            results.reserveCapacity(entries.count)
            var changed: [ExactKey] = []
            var seen: Set<ExactKey> = []
            // While the grants met are new, each is inserted before any read (see ``put(_:now:statements:insertFirst:)``).
            var insertFirst = true
            for entry in entries {
                do throws(StorageError) {
                    let write = try put(entry, now: now, statements: statements, insertFirst: insertFirst)
                    insertFirst = write == .added
                    if write != .unchanged, seen.insert(ExactKey(entry.userId)).inserted { changed.append(ExactKey(entry.userId)) }
                    results.append(.success(write))
                } catch {
                    guard case .grantBelongsToAnotherUser = error else { throw error }
                    insertFirst = false
                    results.append(.failure(error))
                }
            }
            try recordChanges(changed.map { .user($0.text) }, origin: origin)
            return results
        }
    }

    /// The source's grants not revoked are read in grant id order, a page at a time, and those
    /// not kept are revoked one by one.
    public func revokeGrants(
        source: String, keeping grantIds: Set<ExactKey>, now: Instant, origin: Int64
    ) throws(StorageError) -> [(userId: String, grantId: String)] {
        try inWrite { () throws(StorageError) -> [(userId: String, grantId: String)] in
            let page = try prepare(GrantSQL.sourcePage)
            let revoke = try prepare(GrantSQL.revoke)
            var revoked: [(userId: String, grantId: String)] = []
            var users: Set<ExactKey> = []
            var changes: [Change] = []
            var after = ""
            while true {
                let current = try rows(page, [.text(source), .text(after), .integer(GrantSQL.pageSize)]) { row throws(Row.Failure) in
                    (grantId: try row.text(0), userId: try row.text(1))
                }
                for (grantId, userId) in current where !grantIds.contains(ExactKey(grantId)) {
                    try run(revoke, [.text(grantId), .integer(now.milliseconds)])
                    revoked.append((userId, grantId))
                    if users.insert(ExactKey(userId)).inserted { changes.append(.user(userId)) }
                }
                guard let last = current.last, current.count == Int(GrantSQL.pageSize) else { break }
                after = last.grantId
            }
            try recordChanges(changes, origin: origin)
            return revoked
        }
    }

    /// Stores one grant for its user (see ``putGrant(_:userId:now:)``). With `insertFirst` the
    /// grant is inserted before any read, two statements for a new grant instead of three (a bulk
    /// import of new grants); a stored one is then read and judged as without it. A user recorded
    /// here for a grant another user holds is removed again, so that the refused entry changes
    /// nothing.
    private func put(_ entry: UserGrant, now: Instant, statements: GrantStatements<Self>, insertFirst: Bool = false) throws(StorageError) -> GrantWrite {
        let key: [Value] = [.text(entry.grant.grantId)]
        let read = { (row: Row) throws(Row.Failure) in (userId: try row.text(10), grant: try row.grant()) }
        var recordedUser = false
        if insertFirst {
            recordedUser = try run(statements.insertUser, [.text(entry.userId), .integer(now.milliseconds)]) == 1
            if try run(statements.insert, Self.values(of: entry, now: now)) == 1 { return .added }
        }
        // An insert that meets a conflict has waited for the grant it met to commit, which the
        // next read finds (grants are never deleted).
        while true {
            if let stored = try firstRow(statements.stored, key, read) {
                guard stored.userId.sameBytes(as: entry.userId) else {
                    if recordedUser { try run(statements.deleteUser, [.text(entry.userId)]) }
                    throw .grantBelongsToAnotherUser(grantId: entry.grant.grantId, userId: stored.userId)
                }
                if StoredGrant.identical(stored.grant, entry.grant) { return .unchanged }
                try run(statements.update, Self.values(of: entry, now: now))
                return .changed
            }
            if try run(statements.insertUser, [.text(entry.userId), .integer(now.milliseconds)]) == 1 { recordedUser = true }
            if try run(statements.insert, Self.values(of: entry, now: now)) == 1 { return .added }
        }
    }

    /// The parameters of ``GrantSQL/insert`` and ``GrantSQL/update``.
    static func values(of entry: UserGrant, now: Instant) -> [Value] {
        let grant = entry.grant
        let scope: [Value]
        switch grant.scope {
        case .span(let publications, let access, let window):
            scope = [.text("span"), .text(StoredGrant.text(publications)), .text(access.rawValue), .optional(window.map(Int64.init)), .null]
        case .issues(let publication, let issueIds):
            scope = [.text("issues"), .text(StoredGrant.text([publication])), .null, .null, .text(StoredGrant.text(issueIds))]
        }
        return [.text(grant.grantId), .text(entry.userId), .text(grant.source)] + scope + [
            .integer(grant.start.milliseconds), .optional(grant.end?.milliseconds), .optional(grant.revokedAt?.milliseconds), .integer(now.milliseconds),
        ]
    }
}

/// The grant statements a write runs, prepared once for it.
struct GrantStatements<Store: StorePrimitives> {
    let stored: Store.Prepared
    let insertUser: Store.Prepared
    /// Removes a user recorded by the same write for a grant that turned out to be another user's.
    let deleteUser: Store.Prepared
    let insert: Store.Prepared
    let update: Store.Prepared
    let revoke: Store.Prepared

    init(_ store: Store) throws(StorageError) {
        stored = try store.prepare(GrantSQL.stored(Store.dialect))
        insertUser = try store.prepare(WritingSQL.insertUser)
        deleteUser = try store.prepare(GrantSQL.deleteUser)
        insert = try store.prepare(GrantSQL.insert)
        update = try store.prepare(GrantSQL.update)
        revoke = try store.prepare(GrantSQL.revoke)
    }
}

/// The statements of grants.
enum GrantSQL {
    /// A grant and its user (column 10) by grant id ($1), locked until the transaction ends where writers run concurrently.
    static func stored(_ dialect: SQLDialect) -> String {
        "SELECT \(StoredGrant.columns), user_id FROM grants WHERE grant_id = $1\(dialect.lockingRead)"
    }
    static let insert = """
        INSERT INTO grants (grant_id, user_id, source, kind, publications, access, stream_window, issue_ids, start_ms, end_ms, revoked_ms, written_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (grant_id) DO NOTHING
        """
    static let update = """
        UPDATE grants SET source = $3, kind = $4, publications = $5, access = $6, stream_window = $7, issue_ids = $8, start_ms = $9,
            end_ms = $10, revoked_ms = $11, written_ms = $12
        WHERE grant_id = $1 AND user_id = $2
        """
    /// Deletes a user ($1): only one the same write recorded, before anything referred to it.
    static let deleteUser = "DELETE FROM users WHERE user_id = $1"
    /// Revokes a grant ($1) as of $2, unless it is revoked already.
    static let revoke = "UPDATE grants SET revoked_ms = $2, written_ms = $2 WHERE grant_id = $1 AND revoked_ms IS NULL"
    /// A user's grants ($1) by grant id.
    static let userGrants = "SELECT \(StoredGrant.columns) FROM grants WHERE user_id = $1 ORDER BY grant_id"
    /// How many grants ``sourcePage`` reads at a time.
    static let pageSize: Int64 = 10_000
    /// The ids and users of a source's ($1) grants not revoked, after grant id $2, by grant id, $3 at most.
    static let sourcePage = """
        SELECT grant_id, user_id FROM grants WHERE source = $1 AND revoked_ms IS NULL AND grant_id > $2 ORDER BY grant_id LIMIT $3
        """
}
