import MastheadHTTP
import MastheadService
import Testing

/// The configuration file's HTTP limits and their help.
struct ServiceConfigurationTests {
    @Test func outputAndPipeliningLimits_areSettings_listedInHelp() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(#"{"maxPendingOutputBytes": 4096, "maxPipelinedBytes": 512}"#.utf8), file: "limits.json")
        #expect(configuration.http.maxPendingOutputBytes == 4096)
        #expect(configuration.http.maxPipelinedBytes == 512)
        #expect(ServiceConfiguration.settingsHelp.contains("maxPendingOutputBytes"))
        #expect(ServiceConfiguration.settingsHelp.contains("maxPipelinedBytes"))
    }
}
