import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadPostgreSQL
@testable import MastheadService
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// `entitlements.changed` events: written into the outbox in the transaction of the write that
/// changed a reader's answer (state, readable count) for a publication, one per webhook URL, with
/// a sequence per (user, publication, environment); none when nothing the reader sees changed,
/// when the job failed, or when no webhook URL is set; changes time makes found by the sweeper.
struct EntitlementEventTests {
    static let hook = "http://127.0.0.1:9/hook"

    /// A service on `backend` with webhooks to `targets`, taking in data the test chain signs.
    static func harness(_ backend: StoreBackend, targets: [String] = [hook], now: String = "2020-07-02T00:00:00Z") throws -> ServiceHarness {
        try ServiceHarness(backend: backend, now: now) { configuration in
            SignedFixtures.configure(&configuration)
            configuration.webhookURLs = targets
        }
    }

    /// One message of the outbox, its body parsed.
    struct Message {
        var target: String
        var orderingKey: String?
        var eventId: String
        var contentType: String
        var kind: String
        var body: String
        var json: JSONValue? { try? JSONDocument(parsing: Array(body.utf8)).root }
        var user: String? { json?["userId"]?.string }
        var sequence: Int64? { json?["sequence"]?.int64 }
        /// `state/readable` before and after.
        var before: String { Self.answer(json?["before"]) }
        var after: String { Self.answer(json?["after"]) }
        static func answer(_ value: JSONValue?) -> String { "\(value?["status"]?.string ?? "?")/\(value?["readable"]?.int64.map(String.init) ?? "?")" }
    }

    /// The outbox's messages in the order they were enqueued, read from the database.
    static func outbox(_ harness: ServiceHarness) throws -> [Message] { try outbox(at: harness.path) }

    /// The outbox's messages of the database at `path` (a SQLite file or a PostgreSQL URL).
    static func outbox(at path: String) throws -> [Message] {
        let columns = "target, ordering_key, event_id, content_type, kind"
        if path.hasPrefix("postgresql:") {
            let connection = try PostgreSQLConnection(path)
            return try connection.rows("SELECT \(columns), convert_from(body, 'UTF8') FROM outbound_messages ORDER BY id", []) { row throws(PostgreSQLError) in
                Message(
                    target: try row.text(0), orderingKey: try row.optionalText(1), eventId: try row.text(2), contentType: try row.text(3),
                    kind: try row.text(4), body: try row.text(5))
            }
        }
        let database = try Database(path: path)
        return try database.prepare("SELECT \(columns), CAST(body AS TEXT) FROM outbound_messages ORDER BY id").rows([]) { row throws(SQLiteError) in
            Message(
                target: try row.text(0), orderingKey: try row.optionalText(1), eventId: try row.text(2), contentType: try row.text(3),
                kind: try row.text(4), body: try row.text(5))
        }
    }

    /// How many rows `table` holds.
    static func count(_ harness: ServiceHarness, _ table: String) throws -> Int64 { try count(at: harness.path, table) }

    /// How many rows `table` holds in the database at `path`.
    static func count(at path: String, _ table: String) throws -> Int64 {
        if path.hasPrefix("postgresql:") {
            guard case .integer(let count)? = try PostgreSQLConnection(path).scalar("SELECT count(*) FROM \(table)") else { return -1 }
            return count
        }
        guard case .integer(let count)? = try Database(path: path).scalar("SELECT count(*) FROM \(table)") else { return -1 }
        return count
    }

    /// The reader's answer for The Monthly as the entitlements route gives it now: `state/readable`.
    static func answer(_ harness: ServiceHarness, _ user: String, environment: String = "production") -> String {
        let json = harness.call("GET", "/v1/users/\(user)/entitlements?publication=the-monthly&environment=\(environment)").json
        guard let publication = json?["publications"]?.elements.first(where: { _ in true }) else { return "none/0" }
        return "\(publication["status"]?["state"]?.string ?? "?")/\(publication["readable"]?.count ?? -1)"
    }

    static func signed(_ harness: ServiceHarness, _ user: String, _ transactions: [String], renewals: [String] = []) {
        let answer = harness.call("POST", "/v1/users/\(user)/transactions", json: SignedFixtures.transactions(transactions, renewals: renewals))
        #expect(answer.status == 200, "\(answer.body)")
    }

    static func notify(_ harness: ServiceHarness, _ body: String) {
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
        #expect(answer.status == 200, "\(answer.body)")
    }

    static func tx(_ id: String, from: String, to: String, signed: String, revoked: String? = nil) throws -> String {
        try SignedFixtures.transaction(id, original: "1000001", from: from, to: to, signed: signed, revoked: revoked)
    }

    static let (t1From, t1To) = ("2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z")
    static let (t2From, t2To) = ("2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z")

    /// A purchase (signed transactions) and a refund (REFUND): an event each; the March issue's
    /// publication between them, found by the sweeper, one more dated its publish instant; the
    /// renewal (DID_RENEW) before the expiry changes nothing the reader sees: no event. Numbered
    /// 1, 2, 3, each `before` the previous `after`, each `after` what the entitlements route
    /// answers then; the body's keys in the documented order.
    @Test(arguments: StoreBackend.tested) func purchase_publication_refund_anEventEach_butTheTimelyRenewalNone(backend: StoreBackend) throws {
        let harness = try Self.harness(backend, now: "2020-02-21T00:00:00Z")
        defer { harness.close() }
        Self.signed(harness, "alice", [try Self.tx("1000001", from: Self.t1From, to: Self.t1To, signed: Self.t1From)],
                    renewals: [try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: Self.t1From)])
        let afterPurchase = Self.answer(harness, "alice")
        #expect(afterPurchase.hasPrefix("active/"))
        harness.setNow("2020-03-02T00:00:00Z")
        try harness.service.sweepEntitlementEvents()
        let afterPublication = Self.answer(harness, "alice")
        harness.setNow("2020-03-20T11:58:00Z")
        Self.notify(harness, try SignedFixtures.notification(
            "DID_RENEW", transaction: try Self.tx("1000002", from: Self.t2From, to: Self.t2To, signed: Self.t2From),
            renewal: try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: Self.t2From), signed: Self.t2From))
        #expect(Self.answer(harness, "alice") == afterPublication)
        harness.setNow("2020-03-25T00:00:00Z")
        Self.notify(harness, try SignedFixtures.notification(
            "REFUND", transaction: try Self.tx("1000002", from: Self.t2From, to: Self.t2To, signed: "2020-03-25T00:00:00Z", revoked: "2020-03-25T00:00:00Z"),
            signed: "2020-03-25T00:00:00Z"))
        let afterRefund = Self.answer(harness, "alice")
        #expect(afterRefund.hasPrefix("expired/"), "\(afterRefund)")

        let messages = try Self.outbox(harness)
        #expect(messages.map(\.sequence) == [1, 2, 3])
        #expect(messages.map(\.before) == ["none/0", afterPurchase, afterPublication])
        #expect(messages.map(\.after) == [afterPurchase, afterPublication, afterRefund])
        #expect(afterPublication != afterPurchase)
        #expect(messages.map { $0.json?["at"]?.string } == ["2020-02-21T00:00:00Z", "2020-03-01T00:00:00Z", "2020-03-25T00:00:00Z"])
        for message in messages {
            #expect(message.kind == "event" && message.target == Self.hook && message.orderingKey == "alice" && message.contentType == "application/json")
            #expect(message.eventId == message.json?["id"]?.string)
            #expect(message.eventId == message.eventId.lowercased() && UUID(uuidString: message.eventId) != nil)
            #expect(message.user == "alice" && message.json?["type"]?.string == "entitlements.changed")
            #expect(message.json?["publication"]?.string == "the-monthly" && message.json?["environment"]?.string == "production")
            let keys = message.json.map { $0.members.map(\.key.string) }
            #expect(keys == ["id", "type", "userId", "publication", "environment", "at", "sequence", "before", "after"])
        }
    }

    /// A grant and its revocation: an event each; the same grant put again, or the same receipt
    /// posted again, changes nothing the reader sees: no event.
    @Test(arguments: StoreBackend.tested) func grant_andItsRevocation_anEventEach_butARepeatedWriteNone(backend: StoreBackend) throws {
        let harness = try Self.harness(backend)
        defer { harness.close() }
        let grant = #"{"source": "comp", "publications": ["the-monthly"], "access": "streaming", "start": "2020-06-01T00:00:00Z"}"#
        #expect(GrantRouteTests.put(harness, "gus", "g-1", grant).status == 201)
        let granted = Self.answer(harness, "gus")
        #expect(GrantRouteTests.put(harness, "gus", "g-1", grant).status == 200)
        harness.setNow("2020-07-03T00:00:00Z")
        #expect(harness.call("DELETE", "/v1/users/gus/grants/g-1", token: "admin-token").status == 200)
        let revoked = Self.answer(harness, "gus")
        #expect(harness.call("DELETE", "/v1/users/gus/grants/g-1", token: "admin-token").status == 200)
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)

        let messages = try Self.outbox(harness)
        #expect(messages.map(\.user) == ["gus", "gus", "alice"])
        #expect(messages.map(\.sequence) == [1, 2, 1])
        #expect(messages.map(\.before) == ["none/0", granted, "none/0"])
        #expect(messages.map(\.after) == [granted, revoked, Self.answer(harness, "alice")])
        #expect(granted.hasPrefix("active/") && revoked.hasPrefix("expired/"))
    }

    /// A subscription moved to another reader (`restore: transfer`): an event for each, the
    /// first reader's answer back to nothing readable of it, the second's active.
    @Test(arguments: StoreBackend.tested) func restoreMovingASubscription_givesAnEventForBothReaders(backend: StoreBackend) throws {
        let harness = try Self.harness(backend)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let alice = Self.answer(harness, "alice")
        #expect(harness.call("POST", "/v1/users/bob/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let messages = try Self.outbox(harness)
        #expect(messages.map(\.user) == ["alice", "alice", "bob"])
        #expect(messages.map(\.sequence) == [1, 2, 1])
        #expect(messages.map(\.before) == ["none/0", alice, "none/0"])
        #expect(messages.map(\.after) == [alice, Self.answer(harness, "alice"), Self.answer(harness, "bob")])
        #expect(alice.hasPrefix("active/") && Self.answer(harness, "bob") == alice && messages[1].after.hasPrefix("none/"))
    }

    /// A grant that ends with no write after it: the sweeper finds the change once the clock has
    /// passed its end (not before), dated the end, and not twice.
    @Test(arguments: StoreBackend.tested) func lapseWithNoWrite_isFoundByTheSweeper_datedWhenItHappened(backend: StoreBackend) throws {
        let harness = try Self.harness(backend)
        defer { harness.close() }
        let grant = #"{"source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-06-01T00:00:00Z", "end": "2020-07-10T00:00:00Z"}"#
        #expect(GrantRouteTests.put(harness, "gus", "g-1", grant).status == 201)
        let granted = Self.answer(harness, "gus")
        harness.setNow("2020-07-09T00:00:00Z")
        try harness.service.sweepEntitlementEvents()
        #expect(try Self.outbox(harness).count == 1)
        harness.setNow("2020-07-15T00:00:00Z")
        try harness.service.sweepEntitlementEvents()
        try harness.service.sweepEntitlementEvents()
        let messages = try Self.outbox(harness)
        #expect(messages.map(\.sequence) == [1, 2])
        #expect(messages.map(\.before) == ["none/0", granted])
        #expect(messages.last?.after == Self.answer(harness, "gus"))
        #expect(messages.last?.after.hasPrefix("expired/") == true)
        #expect(messages.last?.json?["at"]?.string == "2020-07-10T00:00:00Z")
    }

    /// An issue published through the API to come out before the reader's answer would next
    /// change with time: the sweeper reports the issue becoming readable at its publish instant,
    /// not only at the catalog's next issue.
    @Test(arguments: StoreBackend.tested) func issuePublishedThroughTheAPI_isReportedWhenItBecomesReadable(backend: StoreBackend) throws {
        let harness = try Self.harness(backend)
        defer { harness.close() }
        let grant = #"{"source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-06-01T00:00:00Z"}"#
        #expect(GrantRouteTests.put(harness, "ida", "g-1", grant).status == 201)
        let granted = Self.answer(harness, "ida")
        let special = #"{"title": "Summer special", "published": "2020-07-20T00:00:00Z"}"#
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/summer-special", token: "admin-token", json: special).status == 200)
        harness.setNow("2020-07-21T00:00:00Z")
        try harness.service.sweepEntitlementEvents()
        let messages = try Self.outbox(harness)
        #expect(messages.map(\.sequence) == [1, 2])
        #expect(messages.last?.before == granted)
        #expect(messages.last?.after == Self.answer(harness, "ida"))
        #expect(messages.last?.after != granted)
        #expect(messages.last?.json?["at"]?.string == "2020-07-20T00:00:00Z")
    }

    /// Two instances on one PostgreSQL database each give the same reader an identical grant at
    /// once (two grant ids): whichever commits second finds the answer already reported, so each
    /// reader gets one event, numbered 1.
    @Test(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
    func sameChange_byTwoInstancesAtOnce_isReportedOnce() throws {
        let first = try Self.harness(.postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path) { configuration in configuration.webhookURLs = [Self.hook] }
        defer { second.close(remove: false) }
        let readers = (0..<12).map { "racer-\($0)" }
        let grant = #"{"source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-06-01T00:00:00Z"}"#
        // Known before the race (an app account token records the reader, and writes no event):
        // inserting a new reader would make the second writer wait anyway.
        for (index, reader) in readers.enumerated() {
            let token = String(format: "00000000-0000-4000-8000-%012d", index)
            #expect(first.call("PUT", "/v1/users/\(reader)/app-account-tokens/\(token)").status == 200)
        }
        #expect(try Self.outbox(first).isEmpty)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: readers.count * 2) { index in
            let (harness, grantId) = index % 2 == 0 ? (first, "g-a") : (second, "g-b")
            let status = GrantRouteTests.put(harness, readers[index / 2], "\(grantId)-\(index / 2)", grant).status
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 201, count: readers.count * 2))
        let messages = try Self.outbox(first)
        #expect(messages.compactMap(\.user).sorted() == readers.sorted())
        #expect(messages.allSatisfy { $0.sequence == 1 && $0.before == "none/0" })
    }

    /// Two webhook URLs: each event once per URL, with the same id and body.
    @Test func eachEvent_isWrittenOncePerWebhookURL_withOneId() throws {
        let targets = ["http://127.0.0.1:9/a", "https://example.com/b"]
        let harness = try Self.harness(.sqlite, targets: targets)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let messages = try Self.outbox(harness)
        #expect(messages.map(\.target) == targets)
        #expect(messages[0].eventId == messages[1].eventId && messages[0].body == messages[1].body)
    }

    /// Without webhook URLs nothing is computed: no message and no reported answer stored.
    @Test(arguments: StoreBackend.tested) func noWebhookURLs_noEventsAndNoRows(backend: StoreBackend) throws {
        let harness = try Self.harness(backend, targets: [])
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(GrantRouteTests.put(harness, "gus", "g-1", GrantRouteTests.printGrant).status == 201)
        try harness.service.sweepEntitlementEvents()
        #expect(try Self.count(harness, "outbound_messages") == 0)
        #expect(try Self.count(harness, "reported_entitlements") == 0)
    }

    /// A job giving `user` an archive grant of The Monthly from `now`.
    static func granting(_ user: String) -> @Sendable (any EntitlementStore) throws -> [Change] {
        { store in
            let now = DateText.rfc3339("2020-07-02T00:00:00Z")!
            _ = try store.putGrant(
                Grant(grantId: "g-\(user)", source: "comp", scope: .span(publications: ["the-monthly"], access: .archive, window: nil), start: now),
                userId: user, now: now)
            return [.user(user)]
        }
    }

    /// A job whose hook fails after writing its events is rolled back with them (its savepoint),
    /// while the job committed with it keeps its event, written once although its batch ran twice.
    @Test(arguments: StoreBackend.tested) func failedJob_leavesNoEvent_andItsBatchmateOneEvent(backend: StoreBackend) throws {
        let location = try backend.freshDatabase(prefix: "events")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) } }
        let catalog = try CatalogDecoder().decode([UInt8](try Data(contentsOf: ServiceHarness.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))))
        let queue = try CommitQueue(open: { try StoreLocation(location).open() }, maxBatch: 64, origin: 1)
        let now = DateText.rfc3339("2020-07-02T00:00:00Z")!
        let reporter = EntitlementReporter(targets: [Self.hook])
        queue.install { store, changes in
            let users = changes.compactMap { change -> String? in
                if case .user(let userId) = change { return userId }
                return nil
            }
            try reporter.report(users: users, store: store, catalog: catalog, now: now)
            if users.contains("bob") { throw CommitQueueTests.Refused() }
        }
        let grant = Self.granting
        // Both in one batch: the first waits until the second is queued.
        let started = DispatchSemaphore(value: 0)
        let queued = DispatchGroup()
        queued.enter()
        let done = DispatchGroup()
        done.enter()
        queue.submit({ store in
            started.signal()
            queued.wait()
            return try grant("alice")(store)
        }) { _ in done.leave() }
        started.wait()
        done.enter()
        queue.submit(grant("bob")) { result in
            #expect((try? result.get()) == nil)
            done.leave()
        }
        queued.leave()
        done.wait()
        queue.close()
        #expect(try Self.outbox(at: location).map(\.user) == ["alice"])
        #expect(try Self.count(at: location, "reported_entitlements") == 1)
    }
}
