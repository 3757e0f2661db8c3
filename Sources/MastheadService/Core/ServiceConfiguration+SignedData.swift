import Foundation
public import MastheadCrypto
public import MastheadFormats

/// The trust settings of signed data: the app it must be for and the roots its chains end in.
extension ServiceConfiguration {
    /// The environments `appStoreEnvironments` may name.
    static let appStoreEnvironmentNames = [
        AppStoreEnvironment.production, .sandbox, .xcode, .localTesting,
    ].map(\.rawValue)

    /// The app signed data must be for, and the environments accepted; nil while no
    /// `appStoreBundleId` is configured (signed data is then refused).
    public var appIdentity: AppIdentity? {
        guard !appStoreBundleId.isEmpty else { return nil }
        return AppIdentity(
            bundleId: appStoreBundleId, appAppleId: appStoreAppAppleId == 0 ? nil : Int64(appStoreAppAppleId),
            environments: Set(appStoreEnvironments.map(AppStoreEnvironment.init(rawValue:))))
    }

    /// The root certificates signed data must chain to: those of the `appStoreRootCertificates`
    /// files, in order, or Apple Root CA - G3 when none is given.
    /// - Throws: ``ConfigurationError`` naming the file that cannot be read or holds no certificate.
    public func rootCertificates() throws(ConfigurationError) -> [Certificate] {
        guard !appStoreRootCertificates.isEmpty else { return [.appleRootCAG3] }
        var certificates: [Certificate] = []
        for path in appStoreRootCertificates {
            let bytes: [UInt8]
            do { bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                throw ConfigurationError.invalid("appStoreRootCertificates: cannot read \(path): \(error.localizedDescription)")
            }
            do { certificates += try Certificate.certificates(derOrPEM: bytes) } catch {
                throw ConfigurationError.invalid("appStoreRootCertificates: \(path) is not a DER or PEM certificate: \(error)")
            }
        }
        return certificates
    }

    /// A verifier of signed data's chains and signatures trusting ``rootCertificates()``.
    public func signatureVerifier() throws(ConfigurationError) -> JWSVerifier {
        let roots = try rootCertificates()
        do { return try JWSVerifier(rootCertificates: roots) } catch {
            throw ConfigurationError.invalid("appStoreRootCertificates: the trust store cannot be built: \(error)")
        }
    }
}
