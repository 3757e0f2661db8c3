import Masthead
import MastheadFormats
import MastheadHTTP
import Synchronization

/// Counters for `GET /metrics`, in the Prometheus text format.
///
/// Label values are escaped as the text format says (backslash, double quote, line feed), and
/// notifications are counted under their type only when it is one Apple documents
/// (``knownNotificationTypes``): any other is counted as `other`, so that a sender cannot add
/// series or forge lines.
final class ServiceMetrics: Sendable {
    /// Latency bucket upper bounds, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One route's counts, updated in place.
    private struct Route {
        var byStatus: [Int: Int] = [:]
        /// Counts per latency bucket, +Inf last.
        var buckets = [Int](repeating: 0, count: ServiceMetrics.buckets.count + 1)
        var secondsSum = 0.0

        /// Counts one answer of `status` that took `seconds`, in latency bucket `bucket`.
        mutating func count(status: Int, bucket: Int, seconds: Double) {
            byStatus[status, default: 0] += 1
            buckets[bucket] += 1
            secondsSum += seconds
        }
    }

    private struct State {
        var routes: [String: Route] = [:]
        var notifications: [String: Int] = [:]
        var storeErrors = 0
        /// Set App Account Token calls by outcome (``appAccountTokenUpdateOutcomes``).
        var appAccountTokenUpdates: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func record(route: String, status: Int, seconds: Double) {
        let bucket = ServiceMetrics.buckets.firstIndex { seconds <= $0 } ?? ServiceMetrics.buckets.count
        state.withLock { state in
            // Mutated in place through the dictionary, the route looked up once: no copy of its counts per request.
            state.routes[route, default: Route()].count(status: status, bucket: bucket, seconds: seconds)
        }
    }

    /// The notification types of both versions that are counted under their own name.
    static let knownNotificationTypes: Set<ExactKey> = Set(
        (AppStoreNotification.knownTypes.map { $0 } + NotificationTypeV2.documented.map(\.rawValue)).map(ExactKey.init))

    /// Counts a stored notification under its type, or `other` when the type is not a known one
    /// (compared as bytes: another spelling of a known type is another type).
    func recordNotification(type: String) {
        let label = ServiceMetrics.knownNotificationTypes.contains(ExactKey(type)) ? type : "other"
        state.withLock { $0.notifications[label, default: 0] += 1 }
    }

    func recordStoreError() { state.withLock { $0.storeErrors += 1 } }

    /// What a Set App Account Token call came to: `queued` (owed, with the link that owes it),
    /// `sent` (Apple took it), `retried` (an attempt failed; another follows) or `failed` (given up).
    static let appAccountTokenUpdateOutcomes = ["queued", "sent", "retried", "failed"]

    /// Counts `count` Set App Account Token calls of `outcome`, one of ``appAccountTokenUpdateOutcomes``.
    func recordAppAccountTokenUpdates(_ outcome: String, count: Int = 1) {
        state.withLock { $0.appAccountTokenUpdates[outcome, default: 0] += count }
    }

    /// `value` as a label value of the text format: `\`, `"` and line feed escaped.
    static func escapedLabel(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A }) else { return value }
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count + 8)
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// The exposition text; `cachedUsers` is how many users the answer cache holds now,
    /// `cachedCheckBytes` the heap bytes its check bodies take,
    /// `changeNotificationsUp` whether the connection listening for other instances' commits is
    /// up (nil on SQLite: no such metric), `accessLogDropped` the access log's dropped lines (nil
    /// without an access log: no such metric), `http` what the HTTP server counted (nil: not served).
    func rendered(cachedUsers: Int, cachedCheckBytes: Int, changeNotificationsUp: Bool? = nil, accessLogDropped: Int? = nil, http: HTTPServerCounters? = nil) -> String {
        state.withLock { state in
            var lines = ["# HELP masthead_requests_total HTTP requests by route and status.", "# TYPE masthead_requests_total counter"]
            for route in state.routes.keys.sorted() {
                for (status, count) in state.routes[route]!.byStatus.sorted(by: { $0.key < $1.key }) {
                    lines.append("masthead_requests_total{route=\"\(ServiceMetrics.escapedLabel(route))\",status=\"\(status)\"} \(count)")
                }
            }
            lines += ["# HELP masthead_request_duration_seconds Request latency by route.", "# TYPE masthead_request_duration_seconds histogram"]
            for route in state.routes.keys.sorted() {
                let counts = state.routes[route]!.buckets
                var cumulative = 0
                for (index, bound) in ServiceMetrics.buckets.enumerated() {
                    cumulative += counts[index]
                    lines.append("masthead_request_duration_seconds_bucket{route=\"\(ServiceMetrics.escapedLabel(route))\",le=\"\(bound)\"} \(cumulative)")
                }
                cumulative += counts[ServiceMetrics.buckets.count]
                lines.append("masthead_request_duration_seconds_bucket{route=\"\(ServiceMetrics.escapedLabel(route))\",le=\"+Inf\"} \(cumulative)")
                lines.append("masthead_request_duration_seconds_sum{route=\"\(ServiceMetrics.escapedLabel(route))\"} \(state.routes[route]!.secondsSum)")
                lines.append("masthead_request_duration_seconds_count{route=\"\(ServiceMetrics.escapedLabel(route))\"} \(cumulative)")
            }
            lines += ["# HELP masthead_notifications_total App Store notifications stored, by type.", "# TYPE masthead_notifications_total counter"]
            for type in state.notifications.keys.sorted() {
                lines.append("masthead_notifications_total{type=\"\(ServiceMetrics.escapedLabel(type))\"} \(state.notifications[type]!)")
            }
            lines += ["# HELP masthead_store_errors_total Failed database writes.", "# TYPE masthead_store_errors_total counter",
                      "masthead_store_errors_total \(state.storeErrors)"]
            lines += ["# HELP masthead_app_account_token_updates_total Set App Account Token calls by outcome: queued, sent, retried, failed (given up).",
                      "# TYPE masthead_app_account_token_updates_total counter"]
            for outcome in ServiceMetrics.appAccountTokenUpdateOutcomes {
                lines.append("masthead_app_account_token_updates_total{outcome=\"\(outcome)\"} \(state.appAccountTokenUpdates[outcome, default: 0])")
            }
            lines += ["# HELP masthead_cached_users Users whose answers are cached (at most maxCachedUsers).",
                      "# TYPE masthead_cached_users gauge", "masthead_cached_users \(cachedUsers)"]
            lines += ["# HELP masthead_cached_check_bytes Heap bytes the cached check bodies take (at most maxCachedCheckBytes).",
                      "# TYPE masthead_cached_check_bytes gauge", "masthead_cached_check_bytes \(cachedCheckBytes)"]
            if let http {
                lines += ["# HELP masthead_http_accept_backoffs_total Times accepting paused 100 ms because accept failed (out of file descriptors or memory).",
                          "# TYPE masthead_http_accept_backoffs_total counter", "masthead_http_accept_backoffs_total \(http.acceptBackoffs)"]
                lines += ["# HELP masthead_http_body_budget_refusals_total Requests answered 503 because the request bodies held would exceed maxBufferedBodyBytes.",
                          "# TYPE masthead_http_body_budget_refusals_total counter", "masthead_http_body_budget_refusals_total \(http.bodyBudgetRefusals)"]
            }
            if let changeNotificationsUp {
                lines += ["# HELP masthead_change_notifications_up Whether the PostgreSQL connection listening for other instances' commits is up (1) or reconnecting (0: the change log is read before every answer).",
                          "# TYPE masthead_change_notifications_up gauge", "masthead_change_notifications_up \(changeNotificationsUp ? 1 : 0)"]
            }
            if let accessLogDropped {
                lines += ["# HELP masthead_access_log_dropped_total Access log lines dropped: the buffer was full, or a write failed.",
                          "# TYPE masthead_access_log_dropped_total counter", "masthead_access_log_dropped_total \(accessLogDropped)"]
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
