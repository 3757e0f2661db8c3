import Masthead
import MastheadAppStore
import MastheadClock
import MastheadHTTP
import MastheadJSON

/// `POST /v1/users/{userId}/restore`: a user's purchases fetched from Apple's App Store Server API.
extension ServiceRouter {
    /// Most characters of a transaction id.
    static let maxTransactionIdLength = 64

    /// A restore: `{"transactionId": "…"}` (any transaction id of the user's). Apple's Get
    /// Transaction History (every page; production, then the sandbox when production does not
    /// know the id) gives the customer's transactions, every one verified; they are stored and
    /// their subscriptions linked to the user as a posted receipt's are (the restore behaviour,
    /// 409 `receipt_already_in_use`), and the answer is the user's entitlements, as for a
    /// receipt. Apple is asked on a restore thread (``Restorer``), never on the event loop.
    ///
    /// The restore has `restoreTimeoutMilliseconds` from its arrival, at least 5 s less than the
    /// handler timeout, the time its write has to commit (the configuration says so): Apple's calls (every page, retry and wait) end by
    /// then, and the write checks it before it stores anything; past it the answer is 504
    /// `restore_timeout`, nothing is stored, and the restore's thread is free again. So a restore
    /// the handler timeout answered 503 is never stored afterwards.
    func restore(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let root: JSONValue
        do { root = try JSONDocument(parsing: request.body).root } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        let transactionId: String
        do { transactionId = try Self.transactionId(root) } catch { return reply(error.response) }
        restore(transactionId: transactionId, userId: userId, reply: reply)
    }

    /// Restores the customer whose transaction `transactionId` is (a restore's, or an app
    /// receipt's): asks Apple, stores and links the history, and replies as a restore does.
    func restore(transactionId: String, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard service.signedDataVerifier != nil else { return reply(ServiceError.signedDataNotConfigured.response) }
        let deadline = SystemClock.monotonicMilliseconds() + Int64(service.configuration.restoreTimeoutMilliseconds)
        let refusal = restorer.run { [self] api in
            let history: TransactionHistory
            do throws(AppStoreError) {
                history = try api.transactionHistory(transactionId: transactionId, servers: .productionThenSandbox, deadline: deadline)
            } catch {
                return reply(Self.restoreError(error, transactionId: transactionId).response)
            }
            guard !history.transactions.isEmpty else { return reply(PurchaseError.transactionNotFound(transactionId).response) }
            // A transaction id is no secret: a subscription bound to another user by its app
            // account token stays with them, whatever the restore setting.
            do {
                if let owned = try service.subscriptionOwnedByAnotherUser(history.transactions, userId: userId) {
                    return reply(PurchaseError.receiptAlreadyInUse(environment: owned.environment.rawValue, originalTransactionId: owned.originalTransactionId).response)
                }
            } catch {
                return reply(ServiceError.storeUnavailable(error).response)
            }
            service.postPurchases(
                userId: userId, transactions: history.history.transactions, renewals: [], latestReceipt: nil,
                carryingAppAccountToken: EntitlementService.carryingAppAccountToken(history.transactions), deadline: deadline,
                completion: purchasesAnswer(userId: userId, environment: history.environment, what: "restored transactions", reply: reply))
        }
        if let refusal { reply(refusal.response) }
    }

    /// The body's `transactionId`: 1 to ``maxTransactionIdLength`` ASCII digits.
    static func transactionId(_ root: JSONValue) throws(PurchaseError) -> String {
        guard root.kind == .object, let value = root["transactionId"] else {
            throw .invalidTransactionId(#"expected {"transactionId": "…"}: $.transactionId is missing"#)
        }
        guard let text = value.string else { throw .invalidTransactionId("$.transactionId must be a string of digits") }
        guard !text.isEmpty, text.utf8.count <= maxTransactionIdLength, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidTransactionId("$.transactionId must be 1 to \(maxTransactionIdLength) digits, not \"\(text.prefix(maxTransactionIdLength))\"")
        }
        return text
    }

    /// The answer to a restore Apple's API could not serve.
    static func restoreError(_ error: AppStoreError, transactionId: String) -> PurchaseError {
        if error.isTransactionNotFound { return .transactionNotFound(transactionId) }
        switch error {
        case .notAuthorized, .invalidCredentials, .invalidBaseURL: return .appStoreServerAPIKeyRefused(error.description)
        case .signedDataRefused: return .appleSignedDataRefused("Apple's answer was refused: \(error.description)")
        case .timedOut: return .restoreTimedOut(error.description)
        default: return .appStoreServerAPIFailed(error.description)
        }
    }
}
