public import Masthead

/// Institutional licences and their memberships, once for every backend.
extension StorePrimitives {
    public func putLicence(_ licence: Licence, now: Instant) throws(StorageError) -> [String] {
        try inWrite { () throws(StorageError) -> [String] in
            try run(
                """
                INSERT INTO licences (licence_id, publications, access, start_ms, end_ms, seats, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (licence_id) DO UPDATE SET publications = excluded.publications, access = excluded.access,
                    start_ms = excluded.start_ms, end_ms = excluded.end_ms, seats = excluded.seats, updated_ms = excluded.updated_ms
                """,
                [
                    .text(licence.licenceId), .text(StoredGrant.text(licence.publications)), .text(licence.access.rawValue),
                    .integer(licence.start.milliseconds), .optional(licence.end?.milliseconds), .integer(Int64(licence.seats)), .integer(now.milliseconds),
                ])
            return try rows("SELECT DISTINCT user_id FROM licence_members WHERE licence_id = $1 ORDER BY user_id", [.text(licence.licenceId)]) {
                row throws(Row.Failure) in try row.text(0)
            }
        }
    }

    public func licence(_ licenceId: String) throws(StorageError) -> (licence: Licence, members: Int)? {
        try inSnapshot { () throws(StorageError) -> (licence: Licence, members: Int)? in
            guard let licence = try storedLicence(licenceId, locked: false) else { return nil }
            return (licence, try currentMembers(licenceId))
        }
    }

    /// The licence's row is read with a locking read (PostgreSQL's `FOR UPDATE`; SQLite's write
    /// transaction excludes every other writer), so members are counted and inserted by one
    /// connection at a time.
    public func joinLicence(_ licenceId: String, userId: String, now: Instant) throws(StorageError) -> LicenceJoin {
        try inWrite { () throws(StorageError) -> LicenceJoin in
            guard let licence = try storedLicence(licenceId, locked: true) else { return .unknownLicence }
            let memberships = try userMemberships(licenceId, userId: userId)
            if let current = memberships.last, current.left == nil { return .alreadyMember(current) }
            if let end = licence.end, end <= now { return .ended(end) }
            if try currentMembers(licenceId) >= licence.seats { return .full(seats: licence.seats) }
            try run(WritingSQL.insertUser, [.text(userId), .integer(now.milliseconds)])
            let membership = LicenceMembership(licenceId: licenceId, userId: userId, number: (memberships.last?.number ?? 0) + 1, joined: now, left: nil)
            try run(
                "INSERT INTO licence_members (licence_id, user_id, number, joined_ms, left_ms) VALUES ($1, $2, $3, $4, NULL)",
                [.text(licenceId), .text(userId), .integer(Int64(membership.number)), .integer(now.milliseconds)])
            return .joined(membership)
        }
    }

    public func leaveLicence(_ licenceId: String, userId: String, now: Instant) throws(StorageError) -> LicenceMembership? {
        try inWrite { () throws(StorageError) -> LicenceMembership? in
            guard var latest = try userMemberships(licenceId, userId: userId).last else { return nil }
            guard latest.left == nil else { return latest }
            try run(
                "UPDATE licence_members SET left_ms = $1 WHERE licence_id = $2 AND user_id = $3 AND number = $4",
                [.integer(now.milliseconds), .text(licenceId), .text(userId), .integer(Int64(latest.number))])
            latest.left = now
            return latest
        }
    }

    public func licenceMemberships(_ licenceId: String, after userId: String?, limit: Int) throws(StorageError) -> [LicenceMembership] {
        try rows(
            """
            SELECT licence_id, user_id, number, joined_ms, left_ms FROM licence_members WHERE licence_id = $1 AND user_id IN (
                SELECT DISTINCT user_id FROM licence_members WHERE licence_id = $1 AND user_id > $2 ORDER BY user_id LIMIT $3)
            ORDER BY user_id, number
            """, [.text(licenceId), .text(userId ?? ""), .integer(Int64(limit))]
        ) { row throws(Row.Failure) in try row.membership() }
    }

    /// The grants a user's licence memberships give (``LicenceMembership/grant(of:)``), by licence
    /// and membership number; memberships whose span is empty give none.
    func licenceGrants(forUser userId: String) throws(StorageError) -> [Grant] {
        try rows(
            """
            SELECT m.licence_id, m.user_id, m.number, m.joined_ms, m.left_ms, l.publications, l.access, l.start_ms, l.end_ms, l.seats
            FROM licence_members m JOIN licences l ON l.licence_id = m.licence_id
            WHERE m.user_id = $1 ORDER BY m.licence_id, m.number
            """, [.text(userId)]
        ) { row throws(Row.Failure) -> Grant? in
            let membership = try row.membership()
            let licence = Licence(
                licenceId: membership.licenceId, publications: try row.publications(5), access: try row.access(6), start: try row.instant(7),
                end: try row.optionalInstant(8), seats: Int(try row.integer(9)))
            return membership.grant(of: licence)
        }.compactMap { $0 }
    }

    private func storedLicence(_ licenceId: String, locked: Bool) throws(StorageError) -> Licence? {
        try firstRow(
            "SELECT licence_id, publications, access, start_ms, end_ms, seats FROM licences WHERE licence_id = $1" + (locked ? Self.dialect.lockingRead : ""),
            [.text(licenceId)]
        ) { row throws(Row.Failure) in
            Licence(
                licenceId: try row.text(0), publications: try row.publications(1), access: try row.access(2), start: try row.instant(3),
                end: try row.optionalInstant(4), seats: Int(try row.integer(5)))
        }
    }

    private func currentMembers(_ licenceId: String) throws(StorageError) -> Int {
        Int(try firstRow("SELECT count(*) FROM licence_members WHERE licence_id = $1 AND left_ms IS NULL", [.text(licenceId)]) {
            row throws(Row.Failure) in try row.integer(0)
        } ?? 0)
    }

    private func userMemberships(_ licenceId: String, userId: String) throws(StorageError) -> [LicenceMembership] {
        try rows(
            "SELECT licence_id, user_id, number, joined_ms, left_ms FROM licence_members WHERE licence_id = $1 AND user_id = $2 ORDER BY number",
            [.text(licenceId), .text(userId)]
        ) { row throws(Row.Failure) in try row.membership() }
    }
}

extension StoreRow {
    /// Column `index` as a list of publication ids (a JSON array of strings, as ``StoredGrant`` keeps them).
    func publications(_ index: Int32) throws(Failure) -> [String] {
        let text = try text(index)
        guard let publications = StoredGrant.ids(text) else { throw unexpected(index, value: text, expected: "a JSON array of publication ids") }
        return publications
    }

    /// Column `index` as an access style (its raw name).
    func access(_ index: Int32) throws(Failure) -> AccessStyle {
        let name = try text(index)
        guard let access = AccessStyle(rawValue: name) else { throw unexpected(index, value: name, expected: "an access style (archive or streaming)") }
        return access
    }

    /// The membership whose columns a query selected as `licence_id, user_id, number, joined_ms, left_ms`.
    func membership() throws(Failure) -> LicenceMembership {
        LicenceMembership(
            licenceId: try text(0), userId: try text(1), number: Int(try integer(2)), joined: try instant(3), left: try optionalInstant(4))
    }
}
