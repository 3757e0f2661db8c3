import Foundation
@testable import MastheadService
import Testing

/// `/metrics` as the Prometheus text format has it: label values escaped, and only the
/// notification types Apple documents as series of their own.
struct MetricsLabelTests {
    /// The text format escapes backslash, double quote and line feed in label values.
    @Test func labelValues_escapeBackslashQuoteAndLineFeed() {
        #expect(ServiceMetrics.escapedLabel("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
        #expect(ServiceMetrics.escapedLabel("DID_RENEW") == "DID_RENEW")
    }

    /// A version 1 notification's `notification_type` is the sender's text: one that could close
    /// the label and add a line must not forge a series, and unknown ones must not add series.
    @Test func unknownNotificationTypes_areCountedAsOther_andForgeNoSeries() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let forged = #"X\"} 1\nmasthead_forged_total 1\n# "#
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification(forged, transactions: [])).status == 200)
        for index in 0..<100 {
            #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("TYPE_\(index)", transactions: [])).status == 200)
        }
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("DID_RENEW", transactions: [])).status == 200)
        // REVOKE with a KELVIN SIGN: canonically equal to REVOKE, but other bytes.
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("REVO\u{212A}E", transactions: [])).status == 200)
        let metrics = harness.call("GET", "/metrics").body
        #expect(!metrics.contains("masthead_forged_total"))
        let counted = metrics.split(separator: "\n").filter { $0.hasPrefix("masthead_notifications_total{") }
        #expect(counted == [#"masthead_notifications_total{type="DID_RENEW"} 1"#, #"masthead_notifications_total{type="other"} 102"#])
    }
}
