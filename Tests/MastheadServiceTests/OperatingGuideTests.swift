import Foundation
import MastheadHTTP
@testable import MastheadService
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
        let exposed = Set(ServiceMetrics().rendered(cachedUsers: 0, changeNotificationsUp: true, http: HTTPServerCounters()).split(separator: "\n").compactMap { line -> String? in
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
}
