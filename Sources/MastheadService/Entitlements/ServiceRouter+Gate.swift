import MastheadHTTP

/// The gate, `GET /v1/users/{userId}/issues/{publicationId}/{issueId}/gate`: the download check
/// answered in statuses, for a web server that asks before serving a file (nginx's
/// `auth_request`, Apache's or Caddy's forward authentication).
///
/// It answers from the download check's cached answer, as fast as the check: 204 with no body
/// when the issue is readable, 403 when it is not, with the check's JSON as the body. Both carry
/// the code of the main reason in `Masthead-Reason` (the check's `reason.kind`:
/// `publishedDuringPeriod`, `notSubscribed`…). A publication or issue the catalog does not have is
/// 403 too, `Masthead-Reason: unknown_publication` or `unknown_issue` with the error as the body:
/// the web server refuses the file, where a 404 would make nginx answer 500 (it takes only 2xx,
/// 401 and 403 from its gate). The other errors (a bad token, a bad `at`, the store unavailable)
/// are answered as everywhere else, so that nginx answers them as its own errors.
extension ServiceRouter {
    /// The header holding the code of the gate's reason.
    static let reasonHeader = "Masthead-Reason"

    /// `GET /v1/users/{userId}/issues/{publicationId}/{issueId}/gate`: 204 readable, 403 not.
    func gate(_ request: HTTPRequest, userId: String, publicationId: String, issueId: String) throws(AnyServiceFailure) -> HTTPResponse {
        guard let answer = try checkAnswer(request, userId: userId, publicationId: publicationId, issueId: issueId) else {
            let failure = missing(publicationId: publicationId, issueId: issueId)
            var refusal = failure.response
            refusal.status = 403
            refusal.headers.append((ServiceRouter.reasonHeader, failure.code))
            return refusal
        }
        guard answer.readable else {
            return HTTPResponse(
                status: 403, headers: [("Content-Type", "application/json"), (ServiceRouter.reasonHeader, answer.reason)], body: answer.body)
        }
        return HTTPResponse(status: 204, headers: [(ServiceRouter.reasonHeader, answer.reason)])
    }
}
