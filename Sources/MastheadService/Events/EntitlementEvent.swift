import Masthead
import MastheadJSON
import MastheadStorage

/// An `entitlements.changed` event: a reader's answer for one publication in one environment
/// (its state and readable count) differs from the one last reported.
struct EntitlementEvent: Sendable, Hashable {
    /// The event's `type`.
    static let type = "entitlements.changed"

    /// A new UUID in lower case, also the messages' idempotency id (`Masthead-Event-Id`).
    var id: String
    var userId: String
    var publicationId: String
    var environment: Environment
    /// When the answer changed: the commit's instant for a write, the instant the previous answer
    /// stopped holding for a change time made.
    var at: Instant
    /// Per (user, publication, environment), from 1.
    var sequence: Int64
    var before: ReportedEntitlement.Answer
    var after: ReportedEntitlement.Answer

    /// The JSON body, its keys in the documented order:
    /// `{"id", "type", "userId", "publication", "environment", "at", "sequence", "before", "after"}`.
    var body: [UInt8] {
        var writer = JSONWriter(capacity: 320)
        writer.beginObject()
        writer.field("id", id)
        writer.field("type", Self.type)
        writer.field("userId", userId)
        writer.field("publication", publicationId)
        writer.field("environment", environment.rawValue)
        writer.field("at", at.description)
        writer.field("sequence", sequence)
        writer.key("before")
        Self.write(before, into: &writer)
        writer.key("after")
        Self.write(after, into: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// One outbox message per webhook URL, ordered by the user id.
    func messages(to targets: [String]) -> [OutboundMessage] {
        let body = self.body
        return targets.map { target in
            OutboundMessage(kind: .event, target: target, orderingKey: userId, eventId: id, contentType: "application/json", body: body)
        }
    }

    /// `{"status": "<state>", "readable": <count>}`.
    private static func write(_ answer: ReportedEntitlement.Answer, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("status", answer.state.rawValue)
        writer.field("readable", Int64(answer.readable))
        writer.endObject()
    }
}
