import Synchronization

/// Counters for `GET /metrics`, in the Prometheus text format.
final class ServiceMetrics: Sendable {
    /// Latency bucket upper bounds, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct State {
        var requests: [String: Int] = [:]  // "route|status"
        var latency: [String: [Int]] = [:]  // route → counts per bucket (+Inf last)
        var latencySum: [String: Double] = [:]
        var notifications: [String: Int] = [:]
        var storeErrors = 0
    }

    private let state = Mutex(State())

    func record(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests["\(route)|\(status)", default: 0] += 1
            var counts = state.latency[route] ?? [Int](repeating: 0, count: ServiceMetrics.buckets.count + 1)
            let index = ServiceMetrics.buckets.firstIndex { seconds <= $0 } ?? ServiceMetrics.buckets.count
            counts[index] += 1
            state.latency[route] = counts
            state.latencySum[route, default: 0] += seconds
        }
    }

    func recordNotification(type: String) { state.withLock { $0.notifications[type, default: 0] += 1 } }

    func recordStoreError() { state.withLock { $0.storeErrors += 1 } }

    /// The exposition text.
    func rendered() -> String {
        state.withLock { state in
            var lines = ["# HELP masthead_requests_total HTTP requests by route and status.", "# TYPE masthead_requests_total counter"]
            for key in state.requests.keys.sorted() {
                let parts = key.split(separator: "|")
                lines.append("masthead_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(state.requests[key]!)")
            }
            lines += ["# HELP masthead_request_duration_seconds Request latency by route.", "# TYPE masthead_request_duration_seconds histogram"]
            for route in state.latency.keys.sorted() {
                let counts = state.latency[route]!
                var cumulative = 0
                for (index, bound) in ServiceMetrics.buckets.enumerated() {
                    cumulative += counts[index]
                    lines.append("masthead_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)")
                }
                cumulative += counts[ServiceMetrics.buckets.count]
                lines.append("masthead_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(cumulative)")
                lines.append("masthead_request_duration_seconds_sum{route=\"\(route)\"} \(state.latencySum[route]!)")
                lines.append("masthead_request_duration_seconds_count{route=\"\(route)\"} \(cumulative)")
            }
            lines += ["# HELP masthead_notifications_total App Store notifications stored, by type.", "# TYPE masthead_notifications_total counter"]
            for type in state.notifications.keys.sorted() {
                lines.append("masthead_notifications_total{type=\"\(type)\"} \(state.notifications[type]!)")
            }
            lines += ["# HELP masthead_store_errors_total Failed database writes.", "# TYPE masthead_store_errors_total counter",
                      "masthead_store_errors_total \(state.storeErrors)"]
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
