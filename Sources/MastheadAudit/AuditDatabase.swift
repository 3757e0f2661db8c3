import Glibc
import Masthead
import MastheadStorage

/// The companion service's database as an audit's input: opened without write access (safe
/// beside the running service), read in one snapshot, users in id order.
final class AuditDatabase {
    /// Where a walk through the users has got to.
    struct Cursor {
        /// The user read last; the next batch starts after it.
        var after: String?
        /// Users read so far, this shard's or not.
        var usersRead = 0
        /// Users of other shards passed over.
        var otherShardUsers = 0
    }

    let path: String
    private let store: any EntitlementStore

    /// Opens the database at `path` read-only; a missing file is an error (nothing is created).
    init(path: String) throws(AuditError) {
        if case .postgreSQL = StoreLocation(path) {
            throw AuditError.cannotRead(path: "\(StoreLocation(path))", reason: "audits read SQLite databases only; PostgreSQL is not supported yet")
        }
        self.path = path
        guard access(path, R_OK) == 0 else { throw AuditError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        do { store = try SQLiteStore(path: path, readOnly: true) } catch { throw AuditError.cannotRead(path: path, reason: "\(error)") }
    }

    /// `catalog` with the issues published through the service, which count as they do for the service.
    func catalogWithPublishedIssues(_ catalog: Catalog) throws(AuditError) -> Catalog {
        var merged = catalog
        do {
            for (publicationId, issue) in try store.publishedIssues() {
                if let publication = merged.publication(publicationId) { merged = merged.replacing(publication.upserting(issue)) }
            }
        } catch { throw AuditError.cannotRead(path: path, reason: "\(error)") }
        return merged
    }

    /// Runs `body` in one read snapshot: the audit sees one state of the database while the service goes on writing.
    func withSnapshot<R>(_ body: () throws(AuditError) -> R) throws(AuditError) -> R {
        do {
            return try store.readSnapshot { () throws(AuditError) -> R in try body() }
        } catch let error as AuditError {
            throw error
        } catch {
            throw AuditError.cannotRead(path: path, reason: "\(error)")
        }
    }

    /// How many users the database holds.
    func userCount() throws(AuditError) -> Int {
        do { return try store.userCount() } catch { throw AuditError.cannotRead(path: path, reason: "\(error)") }
    }

    /// The next users of `shard` (all without one) after `cursor`, with their histories: at most `maxUsers`, and
    /// no further user once the batch holds `maxTransactions` transactions, so users with long
    /// histories make smaller batches. Users of other shards are passed over; empty only at the end.
    func nextUsers(after cursor: inout Cursor, shard: Shard?, maxUsers: Int, maxTransactions: Int) throws(AuditError) -> [AuditRecord] {
        do {
            var batch: [AuditRecord] = []
            var transactions = 0
            var more = true
            while batch.isEmpty && more {
                let ids = try store.userIds(after: cursor.after, limit: maxUsers)
                more = !ids.isEmpty
                for id in ids {
                    if transactions >= maxTransactions { break }
                    cursor.after = id
                    cursor.usersRead += 1
                    if let shard, !shard.contains(id) {
                        cursor.otherShardUsers += 1
                        continue
                    }
                    let history = try store.history(forUser: id)
                    batch.append(.user(id: id, history: history))
                    transactions += history.transactions.count
                }
            }
            return batch
        } catch {
            throw AuditError.cannotRead(path: path, reason: "\(error)")
        }
    }
}
