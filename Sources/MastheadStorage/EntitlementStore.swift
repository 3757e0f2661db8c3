/// What the service and `masthead audit --database` need of a store: one connection to the
/// service's durable state, which ``SQLiteStore`` and ``PostgreSQLStore`` implement; the reader's
/// role (``StoreReader``) and the writer's (``StoreWriter``) together.
///
/// A store keeps users and the subscriptions linked to them (R14: environment + original
/// transaction id), every transaction (idempotent per environment + transaction id, copies merged
/// as the engine merges them, `Transaction.merged(with:)`: of signed copies the one signed last
/// gives the state, R2.8; unsigned copies field by field, R2.3: earliest purchase and
/// cancellation, latest expiry, flags kept once set), every
/// distinct renewal info per subscription with its evidence instant (a history: which one is in
/// force as of an instant is the engine's question, R2.7), every notification's raw body (once per
/// `notificationUUID`), the bodies of notifications refused for their signature (bounded), the
/// users' app account tokens, the latest base64 receipt per subscription for polling, issues
/// published through the API, and a change log telling every process on the same data what the
/// others' commits changed.
///
/// A value is one connection, used by one thread at a time. Writes run inside
/// ``StoreWriter/inTransaction(_:)``; reads outside a transaction each see every commit made
/// before them, and ``StoreReader/readSnapshot(_:)`` gives several reads one snapshot.
///
/// Both stores implement it through ``StorePrimitives``: the algorithms are written once over a
/// backend's primitives (see the MastheadStorage article "How the store is layered").
public protocol EntitlementStore: StoreReader, StoreWriter, ConsumptionStore, GiftCodeStore, LicenceStore, OutboxStore, EntitlementReportStore {}
