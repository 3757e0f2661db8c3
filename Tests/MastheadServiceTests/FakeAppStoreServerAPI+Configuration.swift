import MastheadService
import MastheadTestSupport

extension FakeAppStoreServerAPI {
    /// Points `configuration` at the fake App Store Server API at `productionURL` and
    /// `sandboxURL` (plain HTTP allowed), signing with the fake's key.
    static func configure(_ configuration: inout ServiceConfiguration, productionURL: String, sandboxURL: String) {
        configuration.appStoreKeyId = keyId
        configuration.appStoreIssuerId = issuerId
        configuration.appStorePrivateKeyFile = privateKeyPath
        configuration.appStoreServerAPIProductionURL = productionURL
        configuration.appStoreServerAPISandboxURL = sandboxURL
        configuration.appStoreServerAPIAllowHTTP = true
    }

    /// Points `configuration` at this fake, signing with its key.
    func configure(_ configuration: inout ServiceConfiguration) {
        Self.configure(&configuration, productionURL: productionURL, sandboxURL: sandboxURL)
    }
}
