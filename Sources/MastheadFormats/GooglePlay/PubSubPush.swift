public import Masthead
import MastheadCrypto
import MastheadJSON

/// The body Cloud Pub/Sub posts to a push endpoint: `{"message": {"data": …, "messageId": …,
/// "publishTime": …}, "subscription": …}`. For Google Play, `message.data` holds a
/// ``DeveloperNotification``.
public struct PubSubPush: Hashable, Sendable {
    /// `message.data`, base64-decoded.
    public var data: [UInt8]
    /// `message.messageId`: unique per message within the topic; Pub/Sub may deliver a message
    /// more than once.
    public var messageId: String
    /// `message.publishTime`; nil when absent (Google's own example of a Play notification
    /// push has none).
    public var publishTime: Instant?
    /// The Pub/Sub subscription that pushed it (`projects/…/subscriptions/…`).
    public var subscription: String

    /// Creates a push body.
    public init(data: [UInt8], messageId: String, publishTime: Instant?, subscription: String) {
        self.data = data
        self.messageId = messageId
        self.publishTime = publishTime
        self.subscription = subscription
    }

    /// Reads a push body: `message.data` (standard base64, padded), `message.messageId` and
    /// `subscription` are required, `message.publishTime` (RFC 3339) is read when present; other
    /// members (the message's `attributes`, the snake-case twins `message_id` and `publish_time`)
    /// are ignored.
    /// - Throws: ``FormatError`` naming the JSON path of what is missing or wrong.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> PubSubPush {
        let root = try GooglePlayFields(try JSONValue.parsed(bytes), "$", what: "a Pub/Sub push object")
        let message = try root.required("message") { (key) throws(FormatError) in try root.object(key, what: "a Pub/Sub message object") }
        let dataText = try message.required("data") { (key) throws(FormatError) in try message.string(key) }
        let data: [UInt8]
        do { data = try Base64.decode(dataText, .standard) } catch {
            throw .invalidValue(path: message.path("data"), line: message.value("data")?.line ?? message.object.line,
                value: message.value("data")?.rendered ?? "", expected: "standard base64 (\(error))")
        }
        return PubSubPush(
            data: data, messageId: try message.required("messageId") { (key) throws(FormatError) in try message.identifier(key) },
            publishTime: try message.time("publishTime"),
            subscription: try root.required("subscription") { (key) throws(FormatError) in try root.identifier(key) })
    }
}
