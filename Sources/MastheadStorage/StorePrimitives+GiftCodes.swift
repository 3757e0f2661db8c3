public import Masthead

/// Gift codes, once for every backend.
extension StorePrimitives {
    public func createGiftCodes(hashes: [[UInt8]], offer: GiftOffer, now: Instant) throws(StorageError) -> [Int64] {
        let insert = try prepare(
            """
            INSERT INTO gift_codes (code_hash, publications, access, duration, redeem_by_ms, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
            RETURNING id
            """)
        let publications = StoredGrant.text(offer.publications)
        return try inWrite { () throws(StorageError) -> [Int64] in
            var ids: [Int64] = []
            ids.reserveCapacity(hashes.count)
            for hash in hashes {
                let values: [Value] = [
                    .bytes(hash), .text(publications), .text(offer.access.rawValue), .text(offer.duration.description),
                    .integer(offer.redeemBy.milliseconds), .integer(now.milliseconds),
                ]
                guard let id = try firstRow(insert, values, { row throws(Row.Failure) in try row.integer(0) }) else {
                    preconditionFailure("INSERT … RETURNING answered no row")
                }
                ids.append(id)
            }
            return ids
        }
    }

    /// The code's row is read with a locking read and written back only while nobody has
    /// redeemed it (`redeemed_by IS NULL`), so of two connections redeeming it at once the
    /// second waits for the first and finds it redeemed; the grant is stored in the same
    /// transaction (``StoreWriter/putGrant(_:userId:now:)``). The user's row is locked the same
    /// way, so that two gifts redeemed at once by one reader stack rather than overlap.
    public func redeemGiftCode(hash: [UInt8], userId: String, now: Instant) throws(StorageError) -> GiftRedemption {
        try inWrite { () throws(StorageError) -> GiftRedemption in
            let code = try firstRow(
                "SELECT id, publications, access, duration, redeem_by_ms, redeemed_by FROM gift_codes WHERE code_hash = $1\(Self.dialect.lockingRead)",
                [.bytes(hash)]
            ) { row throws(Row.Failure) in
                (id: try row.integer(0), publications: try row.text(1), access: try row.access(2), duration: try row.text(3),
                 redeemBy: try row.instant(4), redeemedBy: try row.optionalText(5))
            }
            guard let code else { return .unknown }
            if code.redeemedBy != nil { return .alreadyRedeemed }
            if now >= code.redeemBy { return .expired(redeemBy: code.redeemBy) }
            guard let duration = CalendarDuration(iso8601: code.duration), let publications = StoredGrant.ids(code.publications) else {
                preconditionFailure("gift code \(code.id) holds what its insert never writes")
            }
            try run(WritingSQL.insertUser, [.text(userId), .integer(now.milliseconds)])
            _ = try firstRow("SELECT 1 FROM users WHERE user_id = $1\(Self.dialect.lockingRead)", [.text(userId)]) { _ in true }
            let start = try currentGiftEnd(userId: userId, publications: publications, access: code.access, now: now) ?? now
            let grant = Self.giftGrant(id: code.id, publications: publications, access: code.access, start: start, end: duration.added(to: start))
            let redeemed = try run(
                "UPDATE gift_codes SET redeemed_by = $1, redeemed_ms = $2 WHERE id = $3 AND redeemed_by IS NULL",
                [.text(userId), .integer(now.milliseconds), .integer(code.id)])
            guard redeemed == 1 else { return .alreadyRedeemed }
            _ = try putGrant(grant, userId: userId, now: now)
            return .redeemed(grant)
        }
    }

    /// The end of the user's gift (a grant of source `gift`) on exactly these publications and
    /// access that is not revoked and ends after `now`, the latest when several do; nil when none does.
    private func currentGiftEnd(userId: String, publications: [String], access: AccessStyle, now: Instant) throws(StorageError) -> Instant? {
        var latest: Instant?
        for grant in try grants(forUser: userId) where grant.source.sameBytes(as: "gift") && grant.revokedAt == nil {
            guard case .span(let granted, let grantedAccess, nil) = grant.scope, grantedAccess == access, let end = grant.end, end > now,
                Set(granted.map(ExactKey.init)) == Set(publications.map(ExactKey.init))
            else { continue }
            latest = max(latest ?? end, end)
        }
        return latest
    }

    static func giftGrant(id: Int64, publications: [String], access: AccessStyle, start: Instant, end: Instant) -> Grant {
        Grant(
            grantId: Grant.giftCodePrefix + String(id), source: "gift", scope: .span(publications: publications, access: access, window: nil), start: start,
            end: end)
    }
}
