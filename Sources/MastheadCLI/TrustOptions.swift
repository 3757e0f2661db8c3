import MastheadClock
import MastheadCrypto
import MastheadFormats

/// How `check`, `timeline`, `audit` and `import` trust signed data: the root certificates its
/// chains must lead to (`--root-certificate`, Apple Root CA - G3 by default), the app it must be for
/// (`--bundle-id`, `--app-apple-id`, else the catalog's `"app"` object, field by field), and, for
/// the commands that declare it, whether signatures go unverified (`--trust-verified`).
///
/// Signed data of every environment Apple names is accepted and read, as a sandbox receipt is:
/// which environment grants is the command's `--environment` choice (R14), so sandbox data is
/// kept and never grants in production.
struct TrustOptions {
    let command: String
    /// The root certificates given, in order; empty for Apple Root CA - G3.
    let roots: [Certificate]
    let bundleId: String?
    let appAppleId: Int64?
    /// Whether signed data is taken as verified already (`--trust-verified`): checked for shape,
    /// app and environment only.
    let trustVerified: Bool

    /// The environments whose signed data is read; `--environment` decides which of them grants.
    static let environments: Set<AppStoreEnvironment> = [.production, .sandbox, .xcode, .localTesting]

    /// Reads the options and loads the root certificates.
    /// - Throws: ``CLIError`` for an unreadable certificate file (66), one that holds no
    ///   certificate (1), an App Apple ID that is not a positive whole number (64), or
    ///   `--trust-verified` beside `--root-certificate` (64).
    init(_ parsed: Arguments, command: String) throws(CLIError) {
        self.command = command
        var roots: [Certificate] = []
        for path in parsed.all("root-certificate") {
            let bytes = try Files.read(path)
            do { roots += try Certificate.certificates(derOrPEM: bytes) } catch { throw CLIError.invalidData("\(path): \(error)") }
        }
        self.roots = roots
        bundleId = parsed.value("bundle-id")
        appAppleId = try parsed.value("app-apple-id").map { (text) throws(CLIError) in
            guard let number = Int64(text), number > 0 else {
                throw CLIError.usage("\(command): --app-apple-id must be the app's App Apple ID, a positive whole number, not '\(text)'")
            }
            return number
        }
        trustVerified = parsed.flag("trust-verified")
        if trustVerified && !roots.isEmpty {
            throw CLIError.usage("\(command): --trust-verified verifies no signature: give it or --root-certificate, not both")
        }
    }

    /// The verifier of signed data for the app the options and `catalog` name (the options win);
    /// nil when neither names a bundle id.
    func verifier(catalog: CatalogDocument) throws(CLIError) -> SignedDataVerifier? {
        guard let bundleId = bundleId ?? catalog.app?.bundleId else { return nil }
        let app = AppIdentity(bundleId: bundleId, appAppleId: appAppleId ?? catalog.app?.appAppleId, environments: Self.environments)
        let trust: SignedDataVerifier.Trust
        if trustVerified {
            trust = .trustedAlready
        } else {
            do { trust = .verifySignatures(roots.isEmpty ? try JWSVerifier() : try JWSVerifier(rootCertificates: roots)) } catch {
                throw CLIError.invalidData("\(command): cannot set up signature verification: \(error)")
            }
        }
        return SignedDataVerifier(trust: trust, app: app, catalog: catalog.catalog, now: SystemClock.now)
    }

    /// The usage error for signed data met by `command` at `location` (a file, a line) without a
    /// bundle id.
    static func missingApp(command: String, at location: String) -> CLIError {
        .usage(
            "\(command): \(location) holds signed data, but no app is named to check it against: "
                + "give --bundle-id ID, or an \"app\" object in catalog.json ({\"bundleId\": \"...\"})")
    }
}
