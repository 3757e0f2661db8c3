public import MastheadAppStore

extension VerifyReceiptClient {
    /// Creates a client from the service configuration's verifyReceipt settings and shared secret,
    /// each request bounded by `appStoreRequestTimeoutSeconds`.
    public init(configuration: ServiceConfiguration) {
        self.init(
            productionURL: configuration.verifyReceiptProductionURL, sandboxURL: configuration.verifyReceiptSandboxURL,
            password: configuration.sharedSecret, attempts: configuration.verifyReceiptAttempts,
            backoffMilliseconds: configuration.verifyReceiptBackoffMilliseconds, allowsHTTP: configuration.verifyReceiptAllowHTTP,
            transport: configuration.appStoreTransport)
    }
}
