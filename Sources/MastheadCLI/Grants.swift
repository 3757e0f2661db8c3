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
    let byUser: [String: [Grant]]
    /// Grants of users outside the audit's shard, left out.
    let otherShardGrants: Int

    /// Reads the whole file, keeping the grants of the users in `shard` (all without one); any
    /// unreadable line makes it an error naming the line (nothing is audited then).
    static func load(_ path: String, shard: Shard? = nil) throws(CLIError) -> Grants {
        let reader = try LineReader(path: path)
        var byUser: [String: [Grant]] = [:]
        var otherShardGrants = 0
        var failure: CLIError?
        do {
            while let text = try reader.next({ String(decoding: $0, as: UTF8.self) }) {
                let number = reader.lineNumber
                let trimmed = text.trimmingSpaces
                if trimmed.isEmpty { continue }
                let fields: (user: String, publication: String, issue: String, grantedAt: String?)
                if trimmed.hasPrefix("{") {
                    guard let root = try? JSONDocument(parsing: trimmed).root, let user = root["user_id"]?.string ?? root["user_id"]?.numberText,
                        let publication = root["publication"]?.string, let issue = root["issue_id"]?.string
                    else {
                        failure = CLIError.invalidData("\(path):\(number): expected {\"user_id\", \"publication\", \"issue_id\"[, \"granted_at\"]}")
                        break
                    }
                    fields = (user, publication, issue, root["granted_at"]?.string)
                } else {
                    let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
                    if number == 1 && parts.first == "user_id" { continue }
                    guard parts.count == 3 || parts.count == 4, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty,
                        !trimmed.contains("\"")
                    else {
                        failure = CLIError.invalidData("\(path):\(number): expected user_id,publication,issue_id[,granted_at] (no quotes)")
                        break
                    }
                    fields = (parts[0], parts[1], parts[2], parts.count == 4 && !parts[3].isEmpty ? parts[3] : nil)
                }
                var grantedAt: Instant?
                if let text = fields.grantedAt {
                    guard let granted = DateText.rfc3339(text) else {
                        failure = CLIError.invalidData("\(path):\(number): granted_at '\(text)' is not an RFC 3339 instant")
                        break
                    }
                    grantedAt = granted
                }
                if let shard, !shard.contains(fields.user) {
                    otherShardGrants += 1
                    continue
                }
                byUser[fields.user, default: []].append(Grant(publication: fields.publication, issue: fields.issue, grantedAt: grantedAt, line: number))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.cannotRead(path: path, reason: "\(error)")
        }
        if let failure { throw failure }
        return Grants(path: path, byUser: byUser, otherShardGrants: otherShardGrants)
    }
}

extension String {
    /// Without spaces, tabs or a carriage return at either end.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}
