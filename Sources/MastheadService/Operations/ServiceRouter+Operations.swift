import MastheadHTTP
import MastheadJSON

/// The routes for operating the service: `GET /health`, `GET /openapi.json` and `GET /metrics`.
extension ServiceRouter {
    /// The operating routes, in the OpenAPI document's order.
    static let operationRoutes: [Route] = [
        Route(["GET"], "/health", .open, label: "health", .immediate { router, _, _ in router.health() }),
        Route(["GET"], "/openapi.json", .open, label: "openapi", .immediate { _, _, _ in .json(200, ServiceRouter.openAPIBody) }),
        Route(["GET"], "/metrics", .apiToken, label: "metrics", .immediate { router, _, _ in router.metrics() }),
    ]

    /// The body of `GET /openapi.json`, built once.
    static let openAPIBody = Array(OpenAPIDocument.json.utf8)

    /// `{"status":"ok"}`, or 503 `{"status":"degraded","database":…}` while the last write failed.
    func health() -> HTTPResponse {
        guard let problem = service.writeProblem else { return .json(200, Array(#"{"status":"ok"}"#.utf8)) }
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("status", "degraded")
        writer.field("database", "the last write failed: \(problem)")
        writer.endObject()
        return .json(503, writer.bytes)
    }

    /// The Prometheus text of ``ServiceMetrics``, the consumption information's counters when it
    /// is on, and the outbox's when webhooks or forwarding are configured.
    func metrics() -> HTTPResponse {
        var text = service.metrics.rendered(
            cachedUsers: service.cachedUserCount, cachedCheckBytes: service.cachedCheckBytes, changeNotificationsUp: service.changeNotificationsUp, accessLogDropped: accessLog?.droppedLines,
            http: httpCounters)
        let consumption = service.consumption.metricsLines(pending: service.consumption.enabled ? service.pendingConsumptionRequests : nil)
        if !consumption.isEmpty { text += consumption.joined(separator: "\n") + "\n" }
        if let unacknowledged = service.googlePlayUnacknowledgedForADay { text += EntitlementService.googlePlayMetricsLines(unacknowledged).joined(separator: "\n") + "\n" }
        if service.deliversOutbound {
            let lines = OutboundWorkers.metricsLines(service.outbound.counted, backlog: service.outboxBacklog, now: service.clock())
            text += lines.joined(separator: "\n") + "\n"
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(text.utf8))
    }
}
