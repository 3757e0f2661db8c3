import Masthead
import MastheadFormats
import MastheadJSON

/// What the content-delivery system granted, read from `--grants`: CSV
/// `user_id,publication,issue_id[,granted_at]` (an optional header line; fields without quotes or
/// commas) or JSON lines with the same fields. A grant counts for audit instants from its `granted_at`
/// on, and is judged by the entitlement at that instant (without one, at each audit instant).
struct Grants: Sendable {
    struct Grant: Sendable {
        var publication: String
        var issue: String
        /// When it was served, if the file says: it counts only for audit instants from then on,
        /// and it is a revenue leak when the reader was not entitled to the issue then.
        var grantedAt: Instant?
        /// The line in the grants file, for reports.
        var line: Int
    }

    let path: String
    /// The grants of each user, by the exact bytes of the user id.
    let byUser: [ExactKey: [Grant]]
    /// Grants of users outside the audit's shard, left out.
    let otherShardGrants: Int

    /// The fields of one grants line, or why it cannot be read.
    private enum Line {
        case blank
        case header
        case grant(user: String, publication: String, issue: String, grantedAt: String?)
        case invalid(String)
    }

    /// Reads the whole file, keeping the grants of the users in `shard` (all without one); any
    /// unreadable line makes it an error naming the line (nothing is audited then).
    static func load(_ path: String, shard: Shard? = nil) throws(AuditError) -> Grants {
        let reader = try LineReader(path: path)
        var byUser: [ExactKey: [Grant]] = [:]
        var otherShardGrants = 0
        var failure: AuditError?
        do {
            while let line = try reader.next({ Self.fields($0, number: reader.lineNumber) }) {
                let number = reader.lineNumber
                guard case .grant(let user, let publication, let issue, let grantedText) = line else {
                    if case .invalid(let expected) = line {
                        failure = AuditError.invalidGrants(path: path, line: number, reason: expected)
                        break
                    }
                    continue
                }
                var grantedAt: Instant?
                if let grantedText {
                    guard let granted = DateText.rfc3339(grantedText) else {
                        failure = AuditError.invalidGrants(path: path, line: number, reason: "granted_at '\(grantedText)' is not an RFC 3339 instant")
                        break
                    }
                    grantedAt = granted
                }
                if let shard, !shard.contains(user) {
                    otherShardGrants += 1
                    continue
                }
                byUser[ExactKey(user), default: []].append(Grant(publication: publication, issue: issue, grantedAt: grantedAt, line: number))
            }
        } catch let error as AuditError {
            throw error
        } catch {
            throw AuditError.cannotRead(path: path, reason: "\(error)")
        }
        if let failure { throw failure }
        return Grants(path: path, byUser: byUser, otherShardGrants: otherShardGrants)
    }

    /// Splits a line: a JSON object, or CSV fields read from the bytes (no quotes allowed, spaces
    /// around fields ignored; a first line starting `user_id` is a header).
    private static func fields(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Line {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        if start == end { return .blank }
        if bytes[start] == UInt8(ascii: "{") {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            guard let root = try? JSONDocument(parsing: text).root, let user = root["user_id"]?.string ?? root["user_id"]?.numberText,
                let publication = root["publication"]?.string, let issue = root["issue_id"]?.string
            else { return .invalid("expected {\"user_id\", \"publication\", \"issue_id\"[, \"granted_at\"]}") }
            return .grant(user: user, publication: publication, issue: issue, grantedAt: root["granted_at"]?.string)
        }
        let expected = Line.invalid("expected user_id,publication,issue_id[,granted_at] (no quotes)")
        var fields: [String] = []
        var fieldStart = start
        for index in start...end where index == end || bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "\"") {
            if index < end && bytes[index] == UInt8(ascii: "\"") { return expected }
            var low = fieldStart
            var high = index
            while low < high && isSpace(bytes[low]) { low += 1 }
            while high > low && isSpace(bytes[high - 1]) { high -= 1 }
            fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[low..<high]), as: UTF8.self))
            fieldStart = index + 1
        }
        if number == 1 && fields.first == "user_id" { return .header }
        guard fields.count == 3 || fields.count == 4, !fields[0].isEmpty, !fields[1].isEmpty, !fields[2].isEmpty else { return expected }
        return .grant(user: fields[0], publication: fields[1], issue: fields[2], grantedAt: fields.count == 4 && !fields[3].isEmpty ? fields[3] : nil)
    }
}
