import Foundation
import MastheadHTTP
@testable import MastheadCLI
import MastheadService
import MastheadTestSupport
import Testing

/// One settings table drives `serve --help`, the `--config` file, the `serve` flags and the
/// service guide's list: every row is in each, with the same default.
struct ServeSettingsTests {
    static let secrets = ServerProcess.environment.merging([
        "MASTHEAD_WEBHOOK_SECRET": "webhook-secret",
        "MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": GooglePlayTestKeys.directory.appendingPathComponent("service-account.json").path,
    ]) { given, _ in given }

    /// `serve` made from `arguments` with the test secrets, not run.
    static func serve(_ arguments: [String]) throws -> ServeCommand {
        try ServeCommand(Arguments(arguments, spec: ServeCommand.spec), environment: secrets)
    }

    /// A value of the setting's kind other than its default, as a flag and as JSON.
    static func otherValue(_ setting: ServiceSetting) -> (flag: String?, json: String) {
        let current = setting.defaultText
        // The catalog is read when the command is made: another catalog that exists (the file itself).
        if setting.key == "catalog" {
            let file = Tool.root.appendingPathComponent("Catalog/the-monthly/catalog.json").path
            return (file, "\"\(file)\"")
        }
        // Google's signing keys are read when the command is made: the test keys' JWKS.
        if setting.key == "googlePlayJWKSFile" {
            let file = GooglePlayTestKeys.directory.appendingPathComponent("jwks.json").path
            return (file, "\"\(file)\"")
        }
        // The webhook and forwarding lists take URLs.
        if ["webhookURLs", "forwardNotificationsTo"].contains(setting.key) { return ("http://127.0.0.1:9/hooks", #"["http://127.0.0.1:9/hooks"]"#) }
        switch setting.kind {
        case .toggle: return (nil, "true")
        case .text: return (current + "-other", "\"\(current)-other\"")
        case .number(let range):
            let number = Int(current) == range.upperBound ? range.lowerBound : (Int(current) ?? 0) + 1
            return (String(number), String(number))
        case .choice(let words):
            let word = words.first { $0 != current } ?? current
            return (word, "\"\(word)\"")
        case .list(let words):
            // One word, or the test chain's root (a file that exists, as the service checks).
            let item = words?.first { $0 != current } ?? TestChain.directory.appendingPathComponent("root.der").path
            return (item, "[\"\(item)\"]")
        }
    }

    @Test func serveHelp_listsEverySetting_asAnOption_withItsDefault() throws {
        let help = try Tool.run(["serve", "--help"])
        #expect(help.status == 0)
        // Rows may wrap: compare with every run of spaces and line breaks as one space.
        let text = help.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for setting in ServiceConfiguration.settings {
            let synopsis = "--\(setting.key)" + (setting.valueName.map { " \($0)" } ?? "")
            #expect(text.contains(" \(synopsis) \(setting.help.dropLast()) (default \(setting.defaultText))."), "\(setting.key)")
        }
        for secret in ServiceConfiguration.secrets { #expect(help.output.contains("  \(secret.variable) "), "\(secret.variable)") }
    }

    @Test func everySetting_isAcceptedAsAFlag_andSetsItsField() throws {
        var arguments: [String] = []
        for setting in ServiceConfiguration.settings {
            let value = Self.otherValue(setting)
            arguments += ["--\(setting.key)"] + (value.flag.map { [$0] } ?? [])
        }
        let configuration = try Self.serve(arguments).configuration
        for setting in ServiceConfiguration.settings {
            #expect(setting.json(in: configuration) == Self.otherValue(setting).json, "\(setting.key)")
        }
    }

    @Test func everySetting_isAcceptedInTheConfigFile_andFlagsWinOverIt() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        let document = ServiceConfiguration.settings.map { "\"\($0.key)\": \(Self.otherValue($0).json)" }.joined(separator: ",\n")
        try Data("{\(document)}".utf8).write(to: file)
        let configuration = try Self.serve(["--config", file.path]).configuration
        for setting in ServiceConfiguration.settings {
            #expect(setting.json(in: configuration) == Self.otherValue(setting).json, "\(setting.key)")
        }
        let overridden = try Self.serve(["--config", file.path, "--port", "0", "--host", "0.0.0.0"]).configuration
        #expect(overridden.http.port == 0)
        #expect(overridden.http.host == "0.0.0.0")
        #expect(overridden.http.threads == configuration.http.threads)
    }

    /// `serve` takes the catalog's app when no `appStoreBundleId` is set (a setting wins), and its
    /// start-up line says which app's signed data it accepts, or why none.
    @Test func signedData_catalogsAppUnlessSet_andTheStartUpLineSaysWhich() throws {
        let catalog = Tool.root.appendingPathComponent("Catalog/the-monthly").path
        let fromCatalog = try Self.serve(["--catalog", catalog, "--appStoreEnvironments", "Production"])
        #expect(fromCatalog.configuration.appStoreBundleId == "com.example.magazine")
        #expect(
            fromCatalog.signedData
                == #"signed data: accepted for bundle id com.example.magazine (from the "app" of \#(catalog)/catalog.json), App Apple ID not checked, environments Production, roots Apple Root CA - G3"#
        )
        let set = try Self.serve(["--catalog", catalog, "--appStoreBundleId", "com.example.other", "--appStoreAppAppleId", "7"])
        #expect(set.configuration.appStoreBundleId == "com.example.other")
        #expect(set.signedData.hasPrefix("signed data: accepted for bundle id com.example.other (from appStoreBundleId), App Apple ID 7,"), "\(set.signedData)")
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: catalog + "/catalog.json"))) as? [String: Any])
        document["app"] = nil
        try JSONSerialization.data(withJSONObject: document).write(to: folder.appendingPathComponent("catalog.json"))
        let none = try Self.serve(["--catalog", folder.path])
        #expect(none.configuration.appStoreBundleId == "")
        #expect(none.signedData == #"signed data: refused: no appStoreBundleId is set and \#(folder.path)/catalog.json has no "app" object ({"bundleId": "..."})"#)
    }

    /// The service's operating guide, where the settings are documented.
    static let guide = "Sources/MastheadService/MastheadService.docc/Operating.md"

    static func guideLines() throws -> [Substring] {
        let text = try String(contentsOf: Tool.root.appendingPathComponent(guide), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The guide's settings table: every key of the code's table, in the same order, with the
    /// same default.
    @Test func guide_listsEverySetting_withItsDefault() throws {
        let lines = try Self.guideLines()
        guard let header = lines.firstIndex(of: "| setting | default | what |") else {
            Issue.record("\(Self.guide) has no settings table")
            return
        }
        var listed: [(key: String, value: String)] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            listed.append((String(cells[0].dropFirst().dropLast()), String(cells[1].dropFirst().dropLast())))
        }
        #expect(listed.map(\.key) == ServiceConfiguration.settings.map(\.key))
        for (key, value) in listed {
            #expect(ServiceConfiguration.setting(key)?.json(in: ServiceConfiguration()) == value, "\(key)")
        }
    }

    /// The guide's configuration-file example is a file `masthead serve --config` accepts, and
    /// gives every setting of the code's table, in the same order.
    @Test func guide_configurationExample_isAccepted_andGivesEverySetting() throws {
        let lines = try Self.guideLines()
        guard let start = lines.firstIndex(of: "```json"), let end = lines[(start + 1)...].firstIndex(of: "```") else {
            Issue.record("\(Self.guide) has no JSON configuration example")
            return
        }
        let example = lines[(start + 1)..<end].joined(separator: "\n")
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(example.utf8), file: Self.guide)
        let keys = lines[(start + 1)..<end].compactMap { $0.firstMatch(of: /^ *"(\w+)":/).map { String($0.1) } }
        #expect(keys == ServiceConfiguration.settings.map(\.key))
    }
}
