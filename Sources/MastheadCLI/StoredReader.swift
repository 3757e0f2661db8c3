import Glibc
import Masthead
import MastheadStorage

/// `--database FILE|URL --user ID` of `check` and `timeline`: a reader as the companion service
/// stores them, read as the service reads them to answer.
///
/// The database is opened without write access (safe beside a running service; a SQLite file
/// must exist, nothing is created or migrated) and read in one snapshot: whether the user
/// exists (by the exact bytes of the id), their history (``StoreReader/history(forUser:)``:
/// transactions, renewal infos, grants, licences) and the issues published through the service,
/// which join the catalog as they do the service's.
struct StoredReader {
    /// `--database FILE|URL`.
    static let databaseOption = OptionSpec.value(
        "database", "FILE|URL",
        """
        The service's database, a SQLite file or postgresql:// URL, read-only:
        answer for the stored reader --user names, as the service does.
        """)

    let location: StoreLocation
    let userId: String

    /// The user's stored history, and `catalog` with the issues published through the service.
    /// A missing file, a database that cannot be read or whose schema is older than this build's
    /// (exit 66), and a user the database does not hold (exit 64, as an unknown publication) are errors.
    func read(catalog: Catalog, command: String) throws(CLIError) -> (history: PurchaseHistory, catalog: Catalog) {
        let name = "\(location)"
        if case .sqlite(let path) = location, access(path, R_OK) != 0 {
            throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        let store: any EntitlementStore
        do {
            let opened = try location.openForReading()
            if opened.schema.isBehind {
                throw CLIError.cannotRead(path: name, reason: Self.behind(opened.schema))
            }
            store = opened.store
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.cannotRead(path: name, reason: "\(error)")
        }
        let read: (history: PurchaseHistory, issues: [(publicationId: String, issue: Issue)])?
        do {
            read = try store.readSnapshot {
                guard try store.userExists(userId) else { return nil }
                return (try store.history(forUser: userId), try store.publishedIssues())
            }
        } catch {
            throw CLIError.cannotRead(path: name, reason: "\(error)")
        }
        guard let read else {
            throw CLIError.usage("\(command): no user '\(userId)' in \(name) (a user id is matched by its exact bytes)")
        }
        var merged = catalog
        for (publicationId, issue) in read.issues {
            if let publication = merged.publication(publicationId) { merged = merged.replacing(publication.upserting(issue)) }
        }
        return (read.history, merged)
    }

    /// Why a database whose schema lacks migrations is not read.
    static func behind(_ schema: StoreSchemaVersion) -> String {
        guard schema.applied > 0 else { return "it holds no Masthead schema (no migration recorded): is it the service's database?" }
        return "its schema has \(schema.applied) of the \(schema.known) migrations this masthead reads (it is never migrated from here): "
            + "start this version's 'masthead serve' on it once, which brings the schema up to date"
    }
}
