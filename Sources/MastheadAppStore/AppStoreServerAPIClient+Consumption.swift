public import Masthead

/// Send Consumption Information, version 2.
extension AppStoreServerAPIClient {
    /// Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`):
    /// tells Apple about the purchase `transactionId` (from a `CONSUMPTION_REQUEST` notification)
    /// within 12 hours of the notification. Apple answers 202 without a body; 429, 5xx and network
    /// failures are retried as every request is.
    /// - Parameter environment: the server of the notification's environment.
    /// - Throws: ``AppStoreError/invalidRequest(endpoint:reason:)`` for a request Apple would
    ///   refuse (nothing is sent); Apple's refusals as the other calls' (``AppStoreError/refused(endpoint:status:errorCode:errorMessage:)``
    ///   with Apple's error code, ``AppStoreError/notAuthorized(status:keyId:issuerId:bundleId:errorCode:errorMessage:)``,
    ///   ``AppStoreError/unavailable(endpoint:attempts:last:)``, ``AppStoreError/rateLimited(endpoint:attempts:retryAfterSeconds:)``).
    public func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest, environment: Environment) throws(AppStoreError) {
        let endpoint = Endpoint(method: "PUT", path: "/inApps/v2/transactions/consumption/" + Endpoint.segment(transactionId), body: request.json)
        if let problem = request.problem { throw .invalidRequest(endpoint: endpoint.name(environment), reason: problem) }
        _ = try send(endpoint, environment: environment)
    }
}
