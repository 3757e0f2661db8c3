import Glibc
import Masthead
import MastheadStorage

/// The companion service's database as an audit's input: opened without write access (safe
/// beside the running service), read in one snapshot, users in id order.
///
/// A SQLite file is walked in pages of user ids (each after the last one read); a PostgreSQL
/// database (a `postgresql://` URL) through a server-side cursor in a `REPEATABLE READ READ
/// ONLY` transaction (`DECLARE … FETCH`). Either way one batch of ids is held at a time.
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

    /// The database as messages name it (a URL without its password).
    let path: String
    private let store: any EntitlementStore
    /// User ids read and not yet handed out, the next one last.
    private var pendingIds: [String] = []
    /// The last user id read from a SQLite file; whether the PostgreSQL cursor is open.
    private var lastRead: String?
    private var cursorOpen = false

    /// Opens the database at `path` (a file, or a `postgresql://` URL) read-only; a missing file
    /// is an error (nothing is created).
    init(path: String) throws(AuditError) {
        let location = StoreLocation(path)
        self.path = "\(location)"
        if case .sqlite = location, access(path, R_OK) != 0 { throw AuditError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        do { store = try location.open(readOnly: true) } catch { throw AuditError.cannotRead(path: self.path, reason: "\(error)") }
    }

    /// `catalog` with the issues published through the service, which count as they do for the service.
    func catalogWithPublishedIssues(_ catalog: Catalog) throws(AuditError) -> Catalog {
        do { return catalog.publishing(try store.publishedIssues()) } catch { throw AuditError.cannotRead(path: path, reason: "\(error)") }
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
            while batch.count < maxUsers, transactions < maxTransactions, let id = try nextUserId(batch: maxUsers) {
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
            return batch
        } catch {
            throw AuditError.cannotRead(path: path, reason: "\(error)")
        }
    }

    /// The next user id in id order, reading `batch` more when none is pending; nil at the end.
    private func nextUserId(batch: Int) throws(StorageError) -> String? {
        if pendingIds.isEmpty {
            if let postgreSQL = store as? PostgreSQLStore {
                if !cursorOpen { try postgreSQL.declareUserCursor() }
                cursorOpen = true
                pendingIds = try postgreSQL.fetchUserIds(batch)
            } else {
                pendingIds = try store.userIds(after: lastRead, limit: batch)
                lastRead = pendingIds.last ?? lastRead
            }
            pendingIds.reverse()
        }
        return pendingIds.popLast()
    }
}
