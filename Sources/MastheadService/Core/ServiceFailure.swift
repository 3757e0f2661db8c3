import MastheadHTTP
import MastheadJSON

/// An error the service answers with: its status, a stable `code` that tells errors apart and a
/// message for people, rendered by ``response`` as `{"error": {"code": "…", "message": "…"}}`.
///
/// Each feature has its own error type conforming to it, giving the three in one table, a row
/// a case (``rendering``); the errors every feature may answer (the HTTP layer's, the token, the
/// path's ids, the store) are ``ServiceError``s. Every conforming type is listed in
/// ``ServiceFailures/types``, which the OpenAPI document is held to.
protocol ServiceFailure: Error, Sendable {
    /// The status code it is answered with, the stable code that tells errors apart in the
    /// answer, and what went wrong, for people.
    var rendering: (status: Int, code: String, message: String) { get }
    /// Headers the answer carries besides `Content-Type` (none unless said).
    var headers: [(name: String, value: String)] { get }
    /// Whether the answer closes the connection (not unless said).
    var closesConnection: Bool { get }
    /// Errors of each case with placeholder payloads, enough to reach every code and status the
    /// type answers with.
    static var examples: [Self] { get }
}

extension ServiceFailure {
    /// The status code it is answered with.
    var status: Int { rendering.status }

    /// The stable code that tells errors apart in the answer.
    var code: String { rendering.code }

    /// What went wrong, for people.
    var message: String { rendering.message }

    var headers: [(name: String, value: String)] { [] }

    var closesConnection: Bool { false }

    /// The answer: `{"error": {"code": "…", "message": "…"}}` with the status and the error's headers.
    var response: HTTPResponse {
        let rendering = rendering
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.field("code", rendering.code)
        writer.field("message", rendering.message)
        writer.endObject()
        writer.endObject()
        var response = HTTPResponse.json(rendering.status, writer.bytes)
        response.headers.append(contentsOf: headers)
        response.closeConnection = closesConnection
        return response
    }

    /// ``examples``, as errors of any type.
    static var anyExamples: [any ServiceFailure] { examples }
}

/// Any feature's error, as the route handlers throw it: typed throws need one concrete type,
/// and an existential is not one. Made only on error paths.
struct AnyServiceFailure: Error {
    let failure: any ServiceFailure

    init(_ failure: any ServiceFailure) {
        self.failure = failure
    }
}

/// An error with a hint of what was probably meant: the error's status and code, its message
/// followed by the hint.
struct HintedFailure: ServiceFailure {
    let failure: any ServiceFailure
    let hint: String

    /// `failure` with `hint` when there is one.
    static func hinted(_ failure: any ServiceFailure, _ hint: String?) -> any ServiceFailure {
        guard let hint else { return failure }
        return HintedFailure(failure: failure, hint: hint)
    }

    var rendering: (status: Int, code: String, message: String) {
        let rendering = failure.rendering
        return (rendering.status, rendering.code, "\(rendering.message); \(hint)")
    }
    var headers: [(name: String, value: String)] { failure.headers }
    var closesConnection: Bool { failure.closesConnection }
    /// None: its code and status are its error's.
    static var examples: [HintedFailure] { [] }
}

/// Every type of error the service answers with, in one list: the OpenAPI document is held to
/// their codes, and a test fails when a type conforming to ``ServiceFailure`` is missing here.
enum ServiceFailures {
    static let types: [any ServiceFailure.Type] = [
        ServiceError.self, HintedFailure.self, NotificationError.self, PurchaseError.self, AppAccountTokenError.self, EntitlementError.self,
        CatalogError.self, MigrationError.self, ConsumptionError.self, GrantError.self, GiftCodeError.self, LicenceError.self,
        SupportError.self, WebhookError.self, GooglePlayServiceError.self,
    ]
}
