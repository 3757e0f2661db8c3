import MastheadFormats

extension EntitlementService {
    /// A verifier of signed data for the configured app, checking products against the catalog
    /// in force, judging undated tokens' chains at the service's clock; nil while no
    /// `appStoreBundleId` is configured (signed data is then refused).
    var signedDataVerifier: SignedDataVerifier? {
        guard let app = configuration.appIdentity else { return nil }
        return SignedDataVerifier(trust: .verifySignatures(signatureVerifier), app: app, catalog: catalog, now: clock)
    }
}
