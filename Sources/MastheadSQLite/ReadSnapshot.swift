/// A read transaction in progress, given to the body of `Database.readSnapshot(_:)`:
/// every read made on ``database`` until the body returns sees the database as it was at the
/// first of them, whatever other connections commit meanwhile.
///
/// It cannot be copied or kept: a function that needs its reads to agree can take a
/// `borrowing ReadSnapshot` to say so, and the transaction ends with the body.
public struct ReadSnapshot: ~Copyable {
    /// The connection whose reads share the snapshot.
    public let database: Database
}
