import Foundation
public import MastheadGooglePlay

/// The Google Play settings and the service account's key file.
extension ServiceConfiguration {
    /// Whether Google Play is on: a package name is set.
    public var googlePlayEnabled: Bool { !googlePlayPackageName.isEmpty }

    /// The Google Play settings given a value other than their default, by key.
    var googlePlaySettingsGiven: [String] {
        let defaults = ServiceConfiguration()
        return Self.settings.filter { $0.key.hasPrefix("googlePlay") && $0.text(in: self) != $0.text(in: defaults) }.map(\.key)
    }

    /// The bytes of the service account's key file (`MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE`).
    /// - Throws: ``ConfigurationError`` naming the variable and the file when it cannot be read;
    ///   never the file's bytes.
    func googlePlayServiceAccountKeyFile() throws(ConfigurationError) -> [UInt8] {
        let path = googlePlayServiceAccountFile
        guard !path.isEmpty else {
            throw .invalid("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE is not set: googlePlayPackageName needs the service account's key file to read purchases from Google")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalid("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE names \"\(path)\", which cannot be read")
        }
        return [UInt8](data)
    }

    /// The service account the Play Developer API is asked as, read from its key file.
    /// - Throws: ``ConfigurationError`` naming the variable and the file and what is wrong with
    ///   it (a missing field, a key that cannot be read); never the key's bytes.
    public func googlePlayServiceAccount() throws(ConfigurationError) -> GoogleServiceAccount {
        let bytes = try googlePlayServiceAccountKeyFile()
        do { return try GoogleServiceAccount(keyFile: bytes) } catch {
            throw .invalid("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE (\"\(googlePlayServiceAccountFile)\"): \(error)")
        }
    }

    /// Google's signing keys from `googlePlayJWKSFile`; nil when it is empty (the keys are then
    /// fetched from `googlePlayJWKSURL`).
    /// - Throws: ``ConfigurationError`` naming the setting and the file.
    func googlePlaySigningKeysFromFile() throws(ConfigurationError) -> GoogleSigningKeys? {
        guard !googlePlayJWKSFile.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: googlePlayJWKSFile) else {
            throw .invalid("googlePlayJWKSFile names \"\(googlePlayJWKSFile)\", which cannot be read")
        }
        do { return try GoogleSigningKeys(jwks: [UInt8](data)) } catch { throw .invalid("googlePlayJWKSFile (\"\(googlePlayJWKSFile)\"): \(error)") }
    }

    /// What is wrong with the Google Play settings, each problem naming its setting or variable:
    /// Google Play settings given while `googlePlayPackageName` is empty, a missing audience or push service
    /// account (for `serve`, which checks the push tokens), the key file missing or unreadable,
    /// a URL that is not https (http only with `googlePlayAllowHTTP`), a JWKS file that cannot be
    /// read or holds no usable key.
    func googlePlayProblems(for use: Use) -> [String] {
        guard googlePlayEnabled else {
            // The key file alone is no problem: a host's environment may hold it for every command.
            let given = googlePlaySettingsGiven
            guard !given.isEmpty else { return [] }
            return ["googlePlayPackageName is not set, but \(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are"): Google Play would be off"]
        }
        var problems: [String] = []
        if use == .serve && googlePlayPubSubAudience.isEmpty {
            problems.append("googlePlayPubSubAudience is not set: Google Play's Pub/Sub push tokens could not be checked (the push subscription's audience)")
        }
        if use == .serve && googlePlayPubSubServiceAccount.isEmpty {
            problems.append("googlePlayPubSubServiceAccount is not set: Google Play's Pub/Sub push tokens could not be checked (the push subscription's service account)")
        }
        for (key, url) in [("googlePlayJWKSURL", googlePlayJWKSURL), ("googlePlayAPIURL", googlePlayAPIURL), ("googlePlayTokenURL", googlePlayTokenURL)] {
            let lowered = url.lowercased()
            guard !(lowered.hasPrefix("https://") || (googlePlayAllowHTTP && lowered.hasPrefix("http://"))) else { continue }
            problems.append("\(key) must be an https URL (http only when googlePlayAllowHTTP is set, for tests), not \"\(RedactedTarget.text(url))\"")
        }
        do throws(ConfigurationError) { _ = try googlePlayServiceAccount() } catch { problems.append(error.message) }
        do throws(ConfigurationError) { _ = try googlePlaySigningKeysFromFile() } catch { problems.append(error.message) }
        return problems
    }
}
