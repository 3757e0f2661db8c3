public import Foundation
public import Masthead
public import MastheadFormats
import MastheadJSON

/// Set App Account Token and Get App Transaction Info.
extension AppStoreServerAPIClient {
    /// Set App Account Token (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`,
    /// body `{"appAccountToken": "…"}`): gives the purchase `originalTransactionId` (bought outside
    /// the app, or without a token) the app account token `appAccountToken`, so that Apple's later
    /// signed transactions and notifications of it carry the token. Apple answers 200 with no body.
    ///
    /// Asks `environment`'s server only. Apple's refusals are
    /// ``AppStoreError/refused(endpoint:status:errorCode:errorMessage:)`` with its error code
    /// (``AppStoreError/appleErrorName`` names it), among them 4000183 (InvalidAppAccountTokenUUIDError),
    /// 4000185 (FamilyTransactionNotSupportedError: a Family Sharing purchase), 4000187
    /// (TransactionIdIsNotOriginalTransactionIdError) and 4040010 (TransactionIdNotFoundError).
    /// - Parameter appAccountToken: sent in lower case, as StoreKit writes it.
    public func setAppAccountToken(originalTransactionId: String, appAccountToken: UUID, environment: Environment) throws(AppStoreError) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("appAccountToken", appAccountToken.uuidString.lowercased())
        writer.endObject()
        let endpoint = Endpoint(
            method: "PUT", path: "/inApps/v1/transactions/" + Endpoint.segment(originalTransactionId) + "/appAccountToken", body: writer.bytes)
        _ = try send(endpoint, environment: environment)
    }

    /// Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{transactionId}`): the
    /// customer's purchase of the app itself, for any transaction id (or app transaction id) of
    /// theirs, verified as every signed answer is: chain and signature, bundle id, App Apple ID
    /// (for production data, when configured) and environment (its `receiptType`).
    /// - Parameter servers: the server to ask, or production then the sandbox.
    /// - Throws: ``AppStoreError/refused(endpoint:status:errorCode:errorMessage:)`` with 4040019
    ///   (AppTransactionDoesNotExistError) when the customer has no app transaction;
    ///   ``AppStoreError/signedDataRefused(endpoint:reason:)`` for a token that does not verify.
    public func appTransactionInfo(transactionId: String, servers: Servers) throws(AppStoreError) -> JWSAppTransactionDecodedPayload {
        let (first, fallsBack) = route(servers)
        let endpoint = Endpoint(
            method: "GET", path: "/inApps/v1/transactions/appTransactions/" + Endpoint.segment(transactionId), fallsBackToSandbox: fallsBack)
        let answer = try send(endpoint, environment: first)
        let response = try read(answer, endpoint) { (body) throws(FormatError) in try AppTransactionInfoResponse(decoding: body) }
        guard let token = response.signedAppTransactionInfo else {
            throw .unreadableAnswer(endpoint: endpoint.name(answer.environment), reason: .missingField(path: "$.signedAppTransactionInfo", line: 1))
        }
        return try verified(endpoint, answer) { () throws(FormatError) in try verifier.appTransaction(token, path: "$.signedAppTransactionInfo") }
    }
}
