import MastheadJSON

/// The app signed data must be for, and the environments whose data the caller accepts.
///
/// Checked on payloads whose signature has been verified, as Apple's library checks them: the
/// bundle id always; the `appAppleId`, when given, for data judged as production data; then the
/// environment (R14: sandbox data never grants in production).
public struct AppIdentity: Hashable, Sendable {
    public var bundleId: String
    /// The app's identifier in the App Store; sandbox data usually carries none.
    public var appAppleId: Int64?
    /// The environments whose data is accepted.
    public var environments: Set<AppStoreEnvironment>

    /// Creates an identity; by default only production data is accepted.
    public init(bundleId: String, appAppleId: Int64? = nil, environments: Set<AppStoreEnvironment> = [.production]) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
    }

    /// Checks a signed transaction's payload: bundle id and environment (transactions carry no `appAppleId`).
    /// - Throws: ``FormatError/wrongBundleId(path:expected:found:)`` or ``FormatError/environmentNotAccepted(path:found:accepted:)``.
    public func check(_ payload: JWSTransactionDecodedPayload, path: String = "$") throws(FormatError) {
        try checkBundleId(payload.bundleId, path: JSONPath.member(path, "bundleId"))
        try checkEnvironment(payload.environment, path: JSONPath.member(path, "environment"))
    }

    /// Checks a signed renewal info's payload: its environment (renewal info names no app).
    /// - Throws: ``FormatError/environmentNotAccepted(path:found:accepted:)``.
    public func check(_ payload: JWSRenewalInfoDecodedPayload, path: String = "$") throws(FormatError) {
        try checkEnvironment(payload.environment, path: JSONPath.member(path, "environment"))
    }

    /// Checks a signed app transaction's payload: bundle id, `appAppleId` (when one is given, for
    /// data judged as production data) and environment (its `receiptType`).
    /// - Throws: ``FormatError/wrongBundleId(path:expected:found:)``,
    ///   ``FormatError/wrongAppAppleId(path:expected:found:)`` or ``FormatError/environmentNotAccepted(path:found:accepted:)``.
    public func check(_ payload: JWSAppTransactionDecodedPayload, path: String = "$") throws(FormatError) {
        try checkBundleId(payload.bundleId, path: JSONPath.member(path, "bundleId"))
        if let expected = appAppleId, isJudgedAsProduction(payload.receiptType), payload.appAppleId != expected {
            throw FormatError.wrongAppAppleId(path: JSONPath.member(path, "appAppleId"), expected: expected, found: payload.appAppleId)
        }
        try checkEnvironment(payload.receiptType, path: JSONPath.member(path, "receiptType"))
    }

    /// Checks a notification's payload with the app fields of its `data`, `summary`,
    /// `externalPurchaseToken` or `appData`, the first present (an external purchase token's
    /// environment is the sandbox when its id starts with `SANDBOX`, else production).
    /// - Throws: ``FormatError/wrongBundleId(path:expected:found:)``,
    ///   ``FormatError/wrongAppAppleId(path:expected:found:)`` or ``FormatError/environmentNotAccepted(path:found:accepted:)``.
    public func check(_ payload: ResponseBodyV2DecodedPayload, path: String = "$") throws(FormatError) {
        let fields: (object: String, bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?, environmentKey: String)
        if let data = payload.data {
            fields = ("data", data.bundleId, data.appAppleId, data.environment, "environment")
        } else if let summary = payload.summary {
            fields = ("summary", summary.bundleId, summary.appAppleId, summary.environment, "environment")
        } else if let token = payload.externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            fields = ("externalPurchaseToken", token.bundleId, token.appAppleId, sandbox ? .sandbox : .production, "externalPurchaseId")
        } else if let app = payload.appData {
            fields = ("appData", app.bundleId, app.appAppleId, app.environment, "environment")
        } else {
            fields = ("data", nil, nil, nil, "environment")
        }
        let object = JSONPath.member(path, fields.object)
        try checkBundleId(fields.bundleId, path: JSONPath.member(object, "bundleId"))
        if let expected = appAppleId, isJudgedAsProduction(fields.environment), fields.appAppleId != expected {
            throw FormatError.wrongAppAppleId(path: JSONPath.member(object, "appAppleId"), expected: expected, found: fields.appAppleId)
        }
        try checkEnvironment(fields.environment, path: JSONPath.member(object, fields.environmentKey))
    }

    /// Whether data of `environment` is judged as Apple's verifier for production judges it:
    /// the data says Production, or it comes from an environment not accepted while production is.
    private func isJudgedAsProduction(_ environment: AppStoreEnvironment?) -> Bool {
        guard environments.contains(.production) else { return false }
        guard let environment else { return true }
        return environment == .production || !environments.contains(environment)
    }

    private func checkBundleId(_ found: String?, path: String) throws(FormatError) {
        guard found == bundleId else { throw FormatError.wrongBundleId(path: path, expected: bundleId, found: found) }
    }

    private func checkEnvironment(_ found: AppStoreEnvironment?, path: String) throws(FormatError) {
        guard let found, environments.contains(found) else {
            throw FormatError.environmentNotAccepted(path: path, found: found?.rawValue, accepted: environments.map(\.rawValue).sorted())
        }
    }
}
