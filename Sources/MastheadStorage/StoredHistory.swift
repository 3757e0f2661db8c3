import Glibc
import Masthead

/// A user's purchase history as the bytes of its `user_histories` row: written in the transaction
/// of every write that changes the history (``StorePrimitives/recordChanges(_:origin:)``), read
/// back by ``StorePrimitives/history(forUser:)`` in one indexed query.
///
/// The format: a version byte (``version``), then the transactions, the renewal infos and the
/// grants, each list as a count and its elements in order. Every field is written: an optional
/// as a byte (0 absent, 1 present) before its value, a flag as one byte (0 or 1), an instant as
/// its milliseconds in 8 bytes, an integer in 4 or 8 bytes (little-endian), a count in 4 bytes,
/// a string as its byte count in 4 bytes and its exact UTF-8 bytes (never normalised), an
/// enumeration as its raw value's string. The last 8 bytes are a checksum of all before them
/// (``checksum(_:)``), so that a row altered in place is refused, not answered from.
enum StoredHistory {
    /// The format's version: a row of another version is not read (the history is read from the tables).
    static let version: UInt8 = 1

    /// The history's bytes.
    static func bytes(_ history: PurchaseHistory) -> [UInt8] {
        var writer = Writer()
        writer.bytes.reserveCapacity(64 + 160 * history.transactions.count + 64 * history.renewals.count + 96 * history.grants.count)
        writer.bytes.append(version)
        writer.count(history.transactions.count)
        for transaction in history.transactions { writer.transaction(transaction) }
        writer.count(history.renewals.count)
        for renewal in history.renewals { writer.renewal(renewal) }
        writer.count(history.grants.count)
        for grant in history.grants { writer.grant(grant) }
        let sum = writer.bytes.withUnsafeBufferPointer { checksum($0) }
        writer.int64(Int64(bitPattern: sum))
        return writer.bytes
    }

    /// A checksum of `bytes`, a word of 8 at a time: each step multiplies by an odd constant,
    /// which maps distinct values to distinct values, so bytes differing within one word always
    /// give another sum.
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var sum: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            sum = mix(sum, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < raw.count {
            var word: UInt64 = 0
            for index in offset..<raw.count { word |= UInt64(raw[index]) << UInt64(8 * (index - offset)) }
            sum = mix(sum, word)
        }
        return sum
    }

    private static func mix(_ sum: UInt64, _ word: UInt64) -> UInt64 {
        let product = (sum ^ word) &* 0x0000_0100_0000_01B3
        return product ^ (product >> 29)
    }

    /// The history of `userId` the bytes hold; nil when they are of another version than
    /// ``version``. Throws ``StorageError/storedHistory(userId:problem:)`` naming what is wrong
    /// when they are not a whole history: a length past the end, a string not UTF-8, a value out
    /// of its range, or bytes left over.
    static func history(_ bytes: [UInt8], userId: String) throws(StorageError) -> PurchaseHistory? {
        do throws(Corrupt) {
            return try bytes.withUnsafeBufferPointer { whole throws(Corrupt) -> PurchaseHistory? in
                guard let first = whole.first else { throw Corrupt(problem: "it is empty") }
                if first != version { return nil }
                guard whole.count >= 9 else { throw Corrupt(problem: "its \(whole.count) bytes are too few for a version and a checksum") }
                let buffer = UnsafeBufferPointer(rebasing: whole[..<(whole.count - 8)])
                let sum = UInt64(littleEndian: UnsafeRawBufferPointer(whole).loadUnaligned(fromByteOffset: buffer.count, as: UInt64.self))
                guard checksum(buffer) == sum else { throw Corrupt(problem: "its checksum does not match its bytes") }
                var reader = Reader(buffer: buffer)
                reader.position = 1
                let transactions = try reader.list("transactions") { reader throws(Corrupt) in try reader.transaction() }
                let renewals = try reader.list("renewal infos") { reader throws(Corrupt) in try reader.renewal() }
                let grants = try reader.list("grants") { reader throws(Corrupt) in try reader.grant() }
                guard reader.position == buffer.count else { throw Corrupt(problem: "\(buffer.count - reader.position) bytes after the grants, before the checksum") }
                return PurchaseHistory(transactions: transactions, renewals: renewals, grants: grants)
            }
        } catch {
            throw .storedHistory(userId: userId, problem: error.problem)
        }
    }

    /// What made a row unreadable.
    struct Corrupt: Error {
        var problem: String
    }
}

// MARK: Writing

extension StoredHistory {
    private struct Writer {
        var bytes: [UInt8] = []

        mutating func count(_ count: Int) { int32(Int32(truncatingIfNeeded: count)) }

        /// Its 4 bytes, little-endian, appended at once.
        mutating func int32(_ number: Int32) { withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) } }

        /// Its 8 bytes, little-endian, appended at once.
        mutating func int64(_ number: Int64) { withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) } }

        mutating func flag(_ flag: Bool) { bytes.append(flag ? 1 : 0) }

        mutating func string(_ text: String) {
            count(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }

        mutating func instant(_ instant: Instant) { int64(instant.milliseconds) }

        /// 0 when absent, else 1 and the value.
        mutating func optional<Value>(_ value: Value?, _ write: (inout Writer, Value) -> Void) {
            guard let value else { return bytes.append(0) }
            bytes.append(1)
            write(&self, value)
        }

        mutating func optionalString(_ text: String?) { optional(text) { $0.string($1) } }

        mutating func optionalInstant(_ instant: Instant?) { optional(instant) { $0.instant($1) } }

        mutating func optionalInt32(_ number: Int32?) { optional(number) { $0.int32($1) } }

        mutating func optionalInt64(_ number: Int64?) { optional(number) { $0.int64($1) } }

        mutating func strings(_ texts: [String]) {
            count(texts.count)
            for text in texts { string(text) }
        }

        mutating func transaction(_ transaction: Transaction) {
            string(transaction.transactionId)
            string(transaction.originalTransactionId)
            string(transaction.productId)
            instant(transaction.purchase)
            optionalInstant(transaction.expires)
            optionalInstant(transaction.cancellation)
            flag(transaction.isUpgraded)
            flag(transaction.isTrial)
            flag(transaction.isIntroductoryOffer)
            optionalString(transaction.offer?.rawValue)
            string(transaction.environment.rawValue)
            optionalInstant(transaction.signedDate)
            optionalInstant(transaction.unsignedCancellation)
            optionalString(transaction.revocationType?.rawValue)
            optionalInt32(transaction.revocationPercentage)
            optional(transaction.terms) { $0.purchaseTerms($1) }
        }

        mutating func purchaseTerms(_ terms: PurchaseTerms) {
            offer(terms.offer)
            optionalString(terms.appTransactionId)
            optionalString(terms.billingPlanType)
            optional(terms.commitment) { writer, commitment in
                writer.optionalInt32(commitment.billingPeriodNumber)
                writer.optionalInt32(commitment.totalBillingPeriods)
                writer.optionalInstant(commitment.expires)
                writer.optionalInt64(commitment.price)
            }
        }

        mutating func offer(_ offer: TermsOffer) {
            optionalInt32(offer.type)
            optionalString(offer.identifier)
            optionalString(offer.period)
        }

        mutating func renewal(_ renewal: RenewalInfo) {
            string(renewal.environment.rawValue)
            optionalString(renewal.originalTransactionId)
            optionalString(renewal.productId)
            optionalString(renewal.autoRenewProductId)
            optional(renewal.autoRenewOn) { $0.flag($1) }
            flag(renewal.isInBillingRetry)
            optionalInstant(renewal.gracePeriodExpires)
            optionalString(renewal.expirationIntent)
            optionalInstant(renewal.evidence)
            optional(renewal.terms) { $0.renewalTerms($1) }
        }

        mutating func renewalTerms(_ terms: RenewalTerms) {
            optionalString(terms.appAccountToken)
            optionalString(terms.appTransactionId)
            offer(terms.offer)
            optional(terms.eligibleWinBackOfferIds) { $0.strings($1) }
            optionalString(terms.renewalBillingPlanType)
            optional(terms.commitment) { writer, commitment in
                writer.optionalString(commitment.autoRenewProductId)
                writer.optionalInt32(commitment.autoRenewStatus)
                writer.optionalString(commitment.renewalBillingPlanType)
                writer.optionalInstant(commitment.renewalDate)
                writer.optionalInt64(commitment.renewalPrice)
            }
        }

        mutating func grant(_ grant: Grant) {
            string(grant.grantId)
            string(grant.source)
            switch grant.scope {
            case .span(let publications, let access, let window):
                bytes.append(0)
                strings(publications)
                string(access.rawValue)
                optionalInt64(window.map(Int64.init))
            case .issues(let publication, let issueIds):
                bytes.append(1)
                string(publication)
                strings(issueIds)
            }
            instant(grant.start)
            optionalInstant(grant.end)
            optionalInstant(grant.revokedAt)
        }
    }
}

// MARK: Reading

extension StoredHistory {
    /// Reads the bytes in place; every length is checked against what is left before it is used.
    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var position = 0

        static let environments = Environment.allCases
        static let offerKinds = OfferKind.allCases
        static let accessStyles = AccessStyle.allCases

        init(buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

        private func need(_ count: Int, _ what: String) throws(Corrupt) {
            guard count <= buffer.count - position else {
                throw Corrupt(problem: "\(what) needs \(count) bytes at offset \(position), \(buffer.count - position) are left")
            }
        }

        mutating func byte(_ what: String) throws(Corrupt) -> UInt8 {
            try need(1, what)
            defer { position += 1 }
            return buffer[position]
        }

        mutating func int32(_ what: String) throws(Corrupt) -> Int32 {
            try need(4, what)
            let bits = UInt32(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: position, as: UInt32.self))
            position += 4
            return Int32(bitPattern: bits)
        }

        mutating func int64(_ what: String) throws(Corrupt) -> Int64 {
            try need(8, what)
            let bits = UInt64(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position += 8
            return Int64(bitPattern: bits)
        }

        /// A count of elements each at least `least` bytes long, checked against what is left.
        mutating func count(_ what: String, least: Int = 1) throws(Corrupt) -> Int {
            let start = position
            let count = Int(try int32(what))
            guard count >= 0, count <= (buffer.count - position) / least else {
                throw Corrupt(problem: "\(what) at offset \(start) counts \(count), more than the \(buffer.count - position) bytes left hold")
            }
            return count
        }

        /// A flag, or with `presence` whether an optional `what` follows: the message of a bad
        /// byte is made only then.
        mutating func flag(_ what: String, presence: Bool = false) throws(Corrupt) -> Bool {
            let start = position
            switch try byte(what) {
            case 0: return false
            case 1: return true
            case let other: throw Corrupt(problem: "\(presence ? "whether \(what) is present" : what) at offset \(start) is \(other), not 0 or 1")
            }
        }

        /// Whether an optional value follows.
        mutating func present(_ what: String) throws(Corrupt) -> Bool { try flag(what, presence: true) }

        mutating func string(_ what: String) throws(Corrupt) -> String {
            let start = position
            let length = try count(what)
            let end = position + length
            let bytes = UnsafeBufferPointer(rebasing: buffer[position..<end])
            // Decoding replaces what is not UTF-8: the text must give back the very bytes.
            var text = String(decoding: bytes, as: UTF8.self)
            let same = text.withUTF8 { decoded in decoded.count == length && (length == 0 || memcmp(decoded.baseAddress!, bytes.baseAddress!, length) == 0) }
            guard same else { throw Corrupt(problem: "\(what) at offset \(start) is not UTF-8") }
            position = end
            return text
        }

        /// The case of `cases` whose raw value's bytes the string is.
        mutating func named<Kind: RawRepresentable>(_ what: String, _ cases: [Kind]) throws(Corrupt) -> Kind where Kind.RawValue == String {
            let start = position
            let length = try count(what)
            let bytes = UnsafeBufferPointer(rebasing: buffer[position..<position + length])
            for kind in cases {
                var raw = kind.rawValue
                if raw.withUTF8({ $0.count == length && (length == 0 || memcmp($0.baseAddress!, bytes.baseAddress!, length) == 0) }) {
                    position += length
                    return kind
                }
            }
            throw Corrupt(problem: "\(what) at offset \(start) is none of \(cases.map(\.rawValue).joined(separator: ", "))")
        }

        mutating func instant(_ what: String) throws(Corrupt) -> Instant { Instant(milliseconds: try int64(what)) }

        mutating func optionalString(_ what: String) throws(Corrupt) -> String? { try present(what) ? try string(what) : nil }

        mutating func optionalInstant(_ what: String) throws(Corrupt) -> Instant? { try present(what) ? try instant(what) : nil }

        mutating func optionalInt32(_ what: String) throws(Corrupt) -> Int32? { try present(what) ? try int32(what) : nil }

        mutating func optionalInt64(_ what: String) throws(Corrupt) -> Int64? { try present(what) ? try int64(what) : nil }

        mutating func strings(_ what: String) throws(Corrupt) -> [String] {
            let count = try count(what, least: 4)
            var texts: [String] = []
            texts.reserveCapacity(count)
            for _ in 0..<count { texts.append(try string(what)) }
            return texts
        }

        /// A list of `what`, each element read by `element`.
        mutating func list<Element>(_ what: String, _ element: (inout Reader) throws(Corrupt) -> Element) throws(Corrupt) -> [Element] {
            let count = try count("the count of \(what)")
            var elements: [Element] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try element(&self)) }
            return elements
        }

        mutating func transaction() throws(Corrupt) -> Transaction {
            Transaction(
                transactionId: try string("a transaction id"), originalTransactionId: try string("an original transaction id"),
                productId: try string("a product id"), purchase: try instant("a purchase date"), expires: try optionalInstant("an expiry"),
                cancellation: try optionalInstant("a cancellation"), isUpgraded: try flag("an upgrade flag"),
                isTrial: try flag("a trial flag"), isIntroductoryOffer: try flag("an introductory offer flag"),
                offer: try present("an offer kind") ? try named("an offer kind", Self.offerKinds) : nil, environment: try named("an environment", Self.environments),
                signedDate: try optionalInstant("a signed date"), unsignedCancellation: try optionalInstant("an unsigned cancellation"),
                revocationType: try optionalString("a revocation type").map(RevocationType.init(rawValue:)),
                revocationPercentage: try optionalInt32("a revocation percentage"),
                terms: try present("purchase terms") ? try purchaseTerms() : nil)
        }

        mutating func purchaseTerms() throws(Corrupt) -> PurchaseTerms {
            let offer = try offer()
            var terms = PurchaseTerms(appTransactionId: try optionalString("an app transaction id"), billingPlanType: try optionalString("a billing plan type"))
            terms.offer = offer
            if try present("a commitment") {
                terms.commitment = PurchaseCommitment(
                    billingPeriodNumber: try optionalInt32("a billing period number"), totalBillingPeriods: try optionalInt32("a count of billing periods"),
                    expires: try optionalInstant("a commitment expiry"), price: try optionalInt64("a commitment price"))
            }
            return terms
        }

        mutating func offer() throws(Corrupt) -> TermsOffer {
            TermsOffer(type: try optionalInt32("an offer type"), identifier: try optionalString("an offer identifier"), period: try optionalString("an offer period"))
        }

        mutating func renewal() throws(Corrupt) -> RenewalInfo {
            RenewalInfo(
                environment: try named("an environment", Self.environments), originalTransactionId: try optionalString("an original transaction id"),
                productId: try optionalString("a product id"), autoRenewProductId: try optionalString("an auto-renew product id"),
                autoRenewOn: try present("an auto-renew status") ? try flag("an auto-renew status") : nil,
                isInBillingRetry: try flag("a billing retry flag"), gracePeriodExpires: try optionalInstant("a grace period's end"),
                expirationIntent: try optionalString("an expiration intent"), evidence: try optionalInstant("an evidence date"),
                terms: try present("renewal terms") ? try renewalTerms() : nil)
        }

        mutating func renewalTerms() throws(Corrupt) -> RenewalTerms {
            var terms = RenewalTerms(appAccountToken: try optionalString("an app account token"), appTransactionId: try optionalString("an app transaction id"))
            terms.offer = try offer()
            if try present("eligible win-back offer ids") { terms.eligibleWinBackOfferIds = try strings("an eligible win-back offer id") }
            terms.renewalBillingPlanType = try optionalString("a renewal billing plan type")
            if try present("a commitment") {
                terms.commitment = RenewalCommitment(
                    autoRenewProductId: try optionalString("a commitment's auto-renew product id"),
                    autoRenewStatus: try optionalInt32("a commitment's auto-renew status"),
                    renewalBillingPlanType: try optionalString("a commitment's renewal billing plan type"),
                    renewalDate: try optionalInstant("a commitment's renewal date"), renewalPrice: try optionalInt64("a commitment's renewal price"))
            }
            return terms
        }

        mutating func grant() throws(Corrupt) -> Grant {
            let grantId = try string("a grant id")
            let source = try string("a grant source")
            let start = position
            let scope: Grant.Scope
            switch try byte("a grant's kind") {
            case 0:
                let publications = try strings("a publication id")
                let access = try named("an access style", Self.accessStyles)
                var window: Int?
                if try present("a streaming window") {
                    let number = try int64("a streaming window")
                    guard let small = Int(exactly: number) else { throw Corrupt(problem: "a streaming window \(number) is out of range") }
                    window = small
                }
                scope = .span(publications: publications, access: access, window: window)
            case 1:
                scope = .issues(publication: try string("a publication id"), issueIds: try strings("an issue id"))
            case let other:
                throw Corrupt(problem: "a grant's kind at offset \(start) is \(other), not 0 (span) or 1 (issues)")
            }
            return Grant(
                grantId: grantId, source: source, scope: scope, start: try instant("a grant's start"), end: try optionalInstant("a grant's end"),
                revokedAt: try optionalInstant("a grant's revocation"))
        }
    }
}
