import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The routes of users' app account tokens: `GET /v1/users/{userId}/app-account-tokens`, and
/// `PUT` and `DELETE /v1/users/{userId}/app-account-tokens/{appAccountToken}`.
extension ServiceRouter {
    /// The app account token routes, in the OpenAPI document's order.
    static let appAccountTokenRoutes: [Route] = [
        Route(
            ["GET"], "/v1/users/{userId}/app-account-tokens", .apiToken, label: "app_account_tokens",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.appAccountTokens(userId: ids[.user]) }),
        Route(
            ["PUT", "DELETE"], "/v1/users/{userId}/app-account-tokens/{appAccountToken}", .apiToken, label: "app_account_token",
            .deferred { router, request, ids, reply in
                router.changeAppAccountToken(request, userId: ids[.user], token: ids[.appAccountToken], reply: reply)
            }),
    ]

    /// `GET /v1/users/{userId}/app-account-tokens`: the user's tokens in the order they were linked.
    func appAccountTokens(userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        try userList(userId: userId, key: "appAccountTokens", bytesPerElement: 128, read: { try service.appAccountTokens(forUser: userId) }) {
            token, writer in ServiceRouter.write(token, into: &writer)
        }
    }

    /// `PUT` links the token (a UUID, checked with the path) to the user, `DELETE` removes it;
    /// both answer the mapping once committed.
    func changeAppAccountToken(_ request: HTTPRequest, userId: String, token: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        // The path check let only a UUID through: its canonical form is its lower case.
        let token = token.lowercased()
        if request.method == "DELETE" {
            service.unlinkAppAccountToken(token, userId: userId) { result in
                switch result {
                case .success(let removed?): reply(ServiceRouter.answer(removed))
                case .success(nil): reply(AppAccountTokenError.unknown(userId: userId, token: token).response)
                case .failure(let error): reply(ServiceError.notStored("removal of the app account token", error).response)
                }
            }
            return
        }
        service.linkAppAccountToken(token, userId: userId) { result in
            switch result {
            case .success(let mapping): reply(ServiceRouter.answer(mapping))
            case .failure(StorageError.appAccountTokenInUse(let token, _)): reply(AppAccountTokenError.inUse(token).response)
            case .failure(let error): reply(ServiceError.notStored("app account token", error).response)
            }
        }
    }

    /// A mapping as answered: `{"userId", "appAccountToken", "linked"}`.
    private static func answer(_ mapping: AppAccountToken) -> HTTPResponse {
        var writer = JSONWriter(capacity: 160)
        write(mapping, into: &writer)
        return .json(200, writer.bytes)
    }

    /// A mapping as listed and answered: `{"userId", "appAccountToken", "linked"}`.
    static func write(_ mapping: AppAccountToken, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("userId", mapping.userId)
        writer.field("appAccountToken", mapping.token)
        writer.field("linked", mapping.linked.description)
        writer.endObject()
    }
}
