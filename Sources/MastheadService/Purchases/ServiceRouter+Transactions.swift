import Masthead
import MastheadCrypto
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// `POST /v1/users/{userId}/transactions`: signed transactions, as a StoreKit 2 app sends them.
extension ServiceRouter {
    /// `POST /v1/users/{userId}/transactions`: a signed-transactions document
    /// (`{"signedTransactions": […], "signedRenewalInfos": […]}`, what a StoreKit 2 app sends),
    /// every token verified, then stored and linked to the user as a receipt is (the restore
    /// behaviour, 409 `receipt_already_in_use`); answered with the user's entitlements once
    /// committed. One refused token refuses the whole document (400 `signed_data_refused`, naming
    /// its JSON path): nothing is stored.
    func postTransactions(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        let tokens: (transactions: [String], renewals: [String])
        do {
            guard case .transactions(let transactions, let renewals)? = try SignedDataDocument.read(document.root) else {
                return reply(PurchaseError.notSignedTransactions.response)
            }
            tokens = (transactions, renewals)
        } catch {
            return reply(PurchaseError.signedDataRefused(error).response)
        }
        guard let verifier = service.signedDataVerifier else { return reply(ServiceError.signedDataNotConfigured.response) }
        var transactions: [SignedTransaction] = []
        var renewals: [SignedRenewal] = []
        do {
            for (index, token) in tokens.transactions.enumerated() {
                transactions.append(try verifier.transaction(token, path: JSONPath.element("$.signedTransactions", index)))
            }
            for (index, token) in tokens.renewals.enumerated() {
                renewals.append(try verifier.renewal(token, path: JSONPath.element("$.signedRenewalInfos", index)))
            }
        } catch {
            return reply(PurchaseError.signedDataRefused(error).response)
        }
        let history = PurchaseHistory(transactions: transactions.map(\.transaction), renewals: renewals.map(\.renewal))
        // Answered for production when any transaction is production data, as a receipt is for its environment.
        let environment: Environment = history.transactions.allSatisfy({ $0.environment == .sandbox }) && !history.transactions.isEmpty ? .sandbox : .production
        service.postPurchases(
            userId: userId, transactions: history.transactions, renewals: history.renewals, latestReceipt: nil,
            carryingAppAccountToken: EntitlementService.carryingAppAccountToken(transactions, renewals),
            completion: purchasesAnswer(userId: userId, environment: environment, what: "signed transactions", reply: reply))
    }
}
