import Foundation
import Masthead
import MastheadHTTP
@testable import MastheadService
import MastheadStorage
import Testing

/// The service's operating guide names the metrics `/metrics` exposes and the route labels they carry.
struct OperatingGuideTests {
    static let guide = "Sources/MastheadService/MastheadService.docc/Operating.md"

    static func text() throws -> String {
        try String(contentsOf: ServiceHarness.root.appendingPathComponent(guide), encoding: .utf8)
    }

    /// Every metric family of the exposition text has a row of the guide's metrics table, and
    /// every row names a family.
    @Test func guide_metricsTable_namesEveryExposedMetric() throws {
        let consumption = ConsumptionReporting(enabled: true, refundPreference: nil, sampleContentProvided: false).metricsLines(pending: 0)
        let webhooks = OutboundWorkers.metricsLines(.init(), backlog: OutboxBacklog(pending: 0, failed: 0, oldestPending: nil), now: Instant(milliseconds: 0))
        let text = ServiceMetrics().rendered(cachedUsers: 0, cachedCheckBytes: 0, changeNotificationsUp: true, accessLogDropped: 0, http: HTTPServerCounters())
            + (consumption + webhooks + EntitlementService.googlePlayMetricsLines(0)).joined(separator: "\n")
        let exposed = Set(text.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("# TYPE ") ? String(line.split(separator: " ")[2]) : nil
        })
        let listed = Set(try Self.text().split(separator: "\n").compactMap { line -> String? in
            line.firstMatch(of: /^\| `(masthead_\w+)` \|/).map { String($0.1) }
        })
        #expect(!exposed.isEmpty)
        #expect(listed == exposed, "in the guide: \(listed.sorted()); exposed: \(exposed.sorted())")
    }

    /// The guide lists every route label of the route table, and `other`.
    @Test func guide_namesEveryRouteLabel() throws {
        let text = try Self.text()
        guard let start = text.range(of: "The `route` label is"), let end = text[start.upperBound...].range(of: "for a path no route serves") else {
            Issue.record("\(Self.guide) does not list the route labels")
            return
        }
        let listed = text[start.upperBound..<end.lowerBound].matches(of: /`(\w+)`/).map { String($0.1) }
        #expect(listed == ServiceRouter.routes.map(\.label) + ["other"])
    }

    /// The guide's systemd unit restarts `serve` after exit 75 (it could not listen now), never
    /// after 64 or 78 (a restart does not mend a usage or configuration error), and keeps the
    /// files it creates private.
    /// The lookup example writes each match's `environment` as the service does (`production`,
    /// `sandbox`), not as Apple spells it.
    @Test func guide_lookupExample_writesEnvironmentsAsTheServiceDoes() throws {
        let text = try Self.text()
        let written = text.matches(of: /"matchedBy":"[^"]*","environment":"([^"]*)"/).map { String($0.output.1) }
        #expect(!written.isEmpty, "the guide has no lookup example")
        let known = Set(Environment.allCases.map(\.rawValue))
        for environment in written {
            #expect(known.contains(environment), "the lookup example writes environment \(environment)")
        }
    }

    @Test func guide_systemdUnit_retriesExit75_notUsageOrConfigurationErrors_andSetsAPrivateUmask() throws {
        let text = try Self.text()
        guard let start = text.range(of: "```ini\n"), let end = text[start.upperBound...].range(of: "```") else {
            Issue.record("\(Self.guide) has no systemd unit")
            return
        }
        var settings: [String: String] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { settings[String(parts[0])] = String(parts[1]) }
        }
        // on-failure: any non-zero exit status is restarted unless RestartPreventExitStatus lists it.
        #expect(settings["Restart"] == "on-failure")
        let prevented = Set((settings["RestartPreventExitStatus"] ?? "").split(separator: " ").map(String.init))
        #expect(prevented.contains("64") && prevented.contains("78"), "\(prevented)")
        #expect(!prevented.contains("75"), "\(prevented)")
        #expect(settings["UMask"] == "0077")
    }
}
