import Foundation
import Glibc
import MastheadJSON
import MastheadPostgreSQL
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Webhooks from `masthead serve` run as processes: an event committed but not delivered when the
/// service is SIGKILLed arrives after a restart; two instances on one PostgreSQL database deliver
/// each event once, in order per user.
struct WebhookProcessTests {
    static let secret = "whsec-process-3a9e"
    static let admin = ["Authorization": "Bearer admin-token"]

    /// The flags and environment of a service whose events and forwarded notifications go to `url`.
    static func webhookSettings(_ url: String) -> (extra: [String], environment: [String: String]) {
        (["--webhookURLs", url, "--forwardNotificationsTo", url, "--webhookTimeoutSeconds", "2"], ["MASTHEAD_WEBHOOK_SECRET": secret])
    }

    /// A change that puts one message in the outbox: a grant for a new reader (an event), or a
    /// version 1 notification of a subscription no reader has (forwarded, no event).
    enum Change: String, CaseIterable, Sendable {
        case grant, notification

        /// Makes the change through `client`; answers the status.
        func make(_ client: TestClient) -> Int? {
            switch self {
            case .grant:
                return client.request("PUT", "/v1/users/kim/grants/comp-1", headers: WebhookProcessTests.admin, body: WebhookProcessTests.grant(start: "2020-04-20"))?.status
            case .notification:
                let body = #"{"notification_type": "DID_RENEW", "password": "shared-secret", "environment": "PROD", "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt_info": [{"transaction_id": "k2", "original_transaction_id": "k1", "product_id": "com.example.monthly", "purchase_date_ms": "1592395200000", "expires_date_ms": "1594987200000"}]}}"#
                return client.request("POST", "/v1/notifications/app-store", headers: ["Content-Type": "application/json"], body: Array(body.utf8))?.status
            }
        }

        var expectedStatus: Int { self == .grant ? 201 : 200 }
        var kind: OutboundMessage.Kind { self == .grant ? .event : .forward }
    }

    static func grant(start: String) -> [UInt8] {
        Array(#"{"source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "\#(start)"}"#.utf8)
    }

    /// The members of an event's JSON body.
    static func event(_ received: WebhookReceiver.Received) throws -> (id: String, userId: String, sequence: Int64) {
        let root = try JSONDocument(parsing: received.body).root
        return (try #require(root["id"]?.string), try #require(root["userId"]?.string), try #require(root["sequence"]?.int64))
    }

    static var unixSeconds: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A grant's event (or a forwarded notification) is committed while the endpoint is down; the
    /// service is SIGKILLed before it could deliver it; the endpoint comes up, the service starts
    /// again on the same database: the message arrives, with the id and body it was committed
    /// with and a valid signature.
    @Test(arguments: Change.allCases)
    func messageCommitted_serviceKilledBeforeDelivery_isDeliveredAfterRestart_sameIdValidSignature(change: Change) throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("webhooks.sqlite").path
        let receiver = try WebhookReceiver()
        receiver.stop()
        let settings = Self.webhookSettings(receiver.url())

        let first = try ServerProcess(database: database, extra: settings.extra, environment: settings.environment)
        let client = try TestClient(port: first.port)
        #expect(change.make(client) == change.expectedStatus)
        _ = first.stop(signal: SIGKILL)

        // Committed, not delivered: the endpoint refused every attempt there was time for.
        let store = try SQLiteStore(path: database, readOnly: true)
        let outbox = try store.outboundDeliveries(state: nil, before: nil, limit: 10, withBodies: true)
        #expect(outbox.count == 1, "\(outbox)")
        let pending = try #require(outbox.first)
        #expect(pending.state == .pending)
        #expect(pending.message.kind == change.kind)
        #expect(receiver.received.isEmpty)

        try receiver.restart()
        let second = try ServerProcess(database: database, extra: settings.extra, environment: settings.environment)
        defer { _ = second.stop(signal: SIGTERM) }
        // A refused attempt before the kill is retried after the first backoff (10 s); a claim cut
        // by the kill ends with its lease (the timeout and a minute): generous bounds.
        let received = receiver.waitFor(1, timeoutSeconds: 120)
        let delivery = try #require(received.first, "nothing arrived after the restart")
        #expect(delivery.header("Masthead-Event-Id") == pending.message.eventId)
        #expect(delivery.body == pending.message.body)
        if change == .grant {
            #expect(try Self.event(delivery).id == pending.message.eventId)
            #expect(try Self.event(delivery).userId == "kim")
        }
        #expect(WebhookReceiver.hasValidSignature(delivery, secret: Self.secret, now: Self.unixSeconds))
    }

    /// Two instances on one PostgreSQL database, each with the other's share of grant changes for
    /// 12 readers: every event of the outbox arrives exactly once (counted by `Masthead-Event-Id`),
    /// and each reader's events arrive in their sequence order, 1, 2, 3, ….
    @Test(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
    func twoInstancesOnPostgreSQL_deliverEachEventOnce_inOrderPerUser() throws {
        let database = try TestPostgreSQL.freshDatabase()
        let receiver = try WebhookReceiver()
        let settings = Self.webhookSettings(receiver.url())
        let instances = [
            try ServerProcess(database: database, extra: settings.extra, environment: settings.environment),
            try ServerProcess(database: database, extra: settings.extra, environment: settings.environment),
        ]
        defer { for instance in instances { _ = instance.stop(signal: SIGTERM) } }
        let clients = try instances.map { try TestClient(port: $0.port) }
        let users = (0..<12).map { "reader-\($0)" }
        // Each change alternates between the instances: a grant given, then revoked, four times.
        for round in 0..<4 {
            for (index, user) in users.enumerated() {
                let giving = clients[(index + round) % 2]
                let revoking = clients[(index + round + 1) % 2]
                #expect(giving.request("PUT", "/v1/users/\(user)/grants/\(user)-g\(round)", headers: Self.admin, body: Self.grant(start: "2020-0\(round + 1)-01"))?.status == 201)
                #expect(revoking.request("DELETE", "/v1/users/\(user)/grants/\(user)-g\(round)", headers: Self.admin)?.status == 200)
            }
        }

        let store = try PostgreSQLStore(url: database, readOnly: true)
        let events = try store.outboundDeliveries(state: nil, before: nil, limit: 1000, withBodies: true).filter { $0.message.kind == .event }
        #expect(events.count >= users.count, "\(events.count) events")
        let received = receiver.waitFor(events.count, timeoutSeconds: 60)
        // Settle: a second delivery of any event would come now.
        usleep(1_500_000)
        let arrived = receiver.received
        #expect(arrived.count == events.count, "\(arrived.count) deliveries of \(events.count) events (\(received.count) within the wait)")
        var counts: [String: Int] = [:]
        for delivery in arrived { counts[delivery.header("Masthead-Event-Id") ?? "", default: 0] += 1 }
        #expect(Set(counts.keys) == Set(events.map(\.message.eventId)))
        #expect(counts.values.allSatisfy { $0 == 1 }, "delivered more than once: \(counts.filter { $0.value > 1 })")
        var sequences: [String: [Int64]] = [:]
        for delivery in arrived {
            let event = try Self.event(delivery)
            sequences[event.userId, default: []].append(event.sequence)
        }
        #expect(Set(sequences.keys) == Set(users))
        for (user, arrivedSequences) in sequences {
            #expect(arrivedSequences == Array(1...Int64(arrivedSequences.count)), "\(user): \(arrivedSequences)")
        }
        #expect(try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true).isEmpty)
    }
}
