import Foundation

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

    /// What is wrong with the Google Play settings, each problem naming its setting or variable:
    /// settings given while `googlePlayPackageName` is empty, a missing audience or push service
    /// account (for `serve`, which checks the push tokens), the key file missing or unreadable,
    /// a URL that is not https (http only with `googlePlayAllowHTTP`), a JWKS file that cannot be read.
    func googlePlayProblems(for use: Use) -> [String] {
        guard googlePlayEnabled else {
            var given = googlePlaySettingsGiven
            if !googlePlayServiceAccountFile.isEmpty { given.append("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE") }
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
        do throws(ConfigurationError) { _ = try googlePlayServiceAccountKeyFile() } catch { problems.append(error.message) }
        if !googlePlayJWKSFile.isEmpty && FileManager.default.contents(atPath: googlePlayJWKSFile) == nil {
            problems.append("googlePlayJWKSFile names \"\(googlePlayJWKSFile)\", which cannot be read")
        }
        return problems
    }
}
