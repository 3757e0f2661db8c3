import Foundation
import MastheadHTTP
import MastheadService
import MastheadTestSupport
import Testing

/// The settings table and the configuration file it reads.
struct ServiceConfigurationTests {
    @Test func outputAndPipeliningLimits_areSettings() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(#"{"maxPendingOutputBytes": 4096, "maxPipelinedBytes": 512}"#.utf8), file: "limits.json")
        #expect(configuration.http.maxPendingOutputBytes == 4096)
        #expect(configuration.http.maxPipelinedBytes == 512)
        #expect(ServiceConfiguration.setting("maxPendingOutputBytes") != nil)
        #expect(ServiceConfiguration.setting("maxPipelinedBytes") != nil)
    }

    /// A value of the setting's kind other than its default.
    static func otherValue(_ setting: ServiceSetting) -> (json: String, text: String?) {
        let current = setting.defaultText
        switch setting.kind {
        case .toggle: return (current == "true" ? "false" : "true", nil)
        case .text: return ("\"\(current)-other\"", current + "-other")
        case .number(let range):
            let number = (Int(current) ?? 0) == range.upperBound ? range.lowerBound : (Int(current) ?? 0) + 1
            return (String(number), String(number))
        case .choice(let words):
            let word = words.first { $0 != current } ?? current
            return ("\"\(word)\"", word)
        case .list(let words):
            // One word, or the test chain's root (a file that exists, as the service checks).
            let item = words?.first { $0 != current } ?? TestChain.directory.appendingPathComponent("root.der").path
            return ("[\"\(item)\"]", item)
        }
    }

    @Test func everySetting_isReadFromTheConfigurationFile_intoItsField() throws {
        let values = ServiceConfiguration.settings.map { ($0, Self.otherValue($0).json) }
        let document = "{" + values.map { "\"\($0.0.key)\": \($0.1)" }.joined(separator: ", ") + "}"
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(document.utf8), file: "all.json")
        for (setting, json) in values {
            #expect(setting.json(in: configuration) == json, "\(setting.key)")
            #expect(setting.json(in: ServiceConfiguration()) != json, "\(setting.key)")
        }
    }

    @Test func configurationFile_wrongValues_areErrorsNamingFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"port": 70000}"#, "ports.json: port must be a whole number from 0 to 65535"),
            (#"{"host": 1}"#, "ports.json: host must be a string"),
            (#"{"polling": "yes"}"#, "ports.json: polling must be true or false"),
            (#"{"restore": "steal"}"#, #"ports.json: restore must be transfer, keep or transferIfInactive, not "steal""#),
            (#"{"maxBodyBites": 1}"#, #"ports.json: unknown setting "maxBodyBites" (see 'masthead serve --help')"#),
        ]
        for (document, message) in cases {
            var configuration = ServiceConfiguration()
            #expect(throws: ConfigurationError.invalid(message)) {
                try configuration.apply(configurationFile: Array(document.utf8), file: "ports.json")
            }
        }
    }
}
