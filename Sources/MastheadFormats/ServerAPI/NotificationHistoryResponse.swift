public import Masthead
import MastheadJSON

/// One page of Get Notification History (`POST /inApps/v1/notifications/history`): the version 2
/// notifications Apple sent (or tried to send), and the `paginationToken` of the next page while `hasMore`.
public struct NotificationHistoryResponse: Hashable, Sendable, ServerAPIResponse {
    public var paginationToken: String?
    public var hasMore: Bool?
    public var notificationHistory: [NotificationHistoryResponseItem] = []

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a notification history response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "paginationToken": paginationToken = try fields.string(value, "paginationToken")
        case "hasMore": hasMore = try fields.bool(value, "hasMore")
        case "notificationHistory":
            notificationHistory =
                try fields.objects(value, "notificationHistory", what: "notification history object", NotificationHistoryResponseItem.read) ?? []
        default: break
        }
    }
}

/// One notification of a ``NotificationHistoryResponse``: its signed payload and Apple's attempts to send it.
public struct NotificationHistoryResponseItem: Hashable, Sendable, SignedObject {
    /// The notification's `signedPayload`, still to verify.
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem] = []

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedPayload": signedPayload = try fields.string(value, "signedPayload")
        case "sendAttempts": sendAttempts = try fields.objects(value, "sendAttempts", what: "send attempt object", SendAttemptItem.read) ?? []
        default: break
        }
    }
}

/// One attempt of Apple's to send a notification: when, and what came of it (`SUCCESS`, `TIMED_OUT`, …).
public struct SendAttemptItem: Hashable, Sendable, SignedObject {
    public var attemptDate: Instant?
    /// Apple's `sendAttemptResult`, kept as sent.
    public var sendAttemptResult: String?

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "attemptDate": attemptDate = try fields.instant(value, "attemptDate")
        case "sendAttemptResult": sendAttemptResult = try fields.string(value, "sendAttemptResult")
        default: break
        }
    }
}
