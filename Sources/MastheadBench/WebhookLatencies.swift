import Foundation
import Synchronization

/// The soak run's webhook figures: when each user's change was posted and when their first event
/// arrived (in either order: an event may arrive before the client has read the post's answer),
/// and the latencies between the two, per sample and over the run.
final class WebhookLatencies: Sendable {
    private struct State {
        /// Users posted whose first event has not arrived yet: when the post started.
        var posted: [String: Double] = [:]
        /// Users whose first event arrived before their post was noted: when it arrived.
        var arrived: [String: Double] = [:]
        /// Latencies (seconds) since the last sample, and over the run.
        var interval: [Double] = []
        var all: [Double] = []
    }

    private let state = Mutex(State())

    /// Notes that the post that changes `user` started at `instant` (``SystemClock/seconds()``).
    func posted(_ user: String, at instant: Double) {
        state.withLock { state in
            if let arrival = state.arrived.removeValue(forKey: user) {
                state.interval.append(arrival - instant)
            } else {
                state.posted[user] = instant
            }
        }
    }

    /// One sample's line and table row, from what the sink received since the last one.
    struct Sample {
        let text: String
        let row: String
        /// Users posted whose event has not arrived yet (some never get one: their receipt gives them nothing to report).
        let waiting: Int
    }

    /// Matches the arrivals `received` to the posts and describes the interval of `seconds`.
    func sample(_ received: (deliveries: Int, events: Int, firstArrival: [String: Double]), elapsed: Double, seconds: Double) -> Sample {
        state.withLock { state in
            for (user, arrival) in received.firstArrival {
                if let posted = state.posted.removeValue(forKey: user) {
                    state.interval.append(arrival - posted)
                } else {
                    state.arrived[user] = arrival
                }
            }
            let latencies = state.interval.sorted()
            state.all += state.interval
            state.interval = []
            let matched = Double(latencies.count) / seconds
            let p50 = WebhookLatencies.percentile(latencies, 0.50) * 1000
            let p99 = WebhookLatencies.percentile(latencies, 0.99) * 1000
            let perSecond = Double(received.deliveries) / seconds
            return Sample(
                text: String(format: "%5.0fs  webhooks: %.0f first events/s, %.0f deliveries/s, latency p50 %.1f ms p99 %.1f ms, %d posted users without an event",
                    elapsed, matched, perSecond, p50, p99, state.posted.count),
                row: String(format: "| %.0f | %.0f | %.0f | %.1f | %.1f | %d |", elapsed, matched, perSecond, p50, p99, state.posted.count),
                waiting: state.posted.count)
        }
    }

    /// The run's totals: distinct events delivered and the latency percentiles over every user.
    func summary(events: Int) -> String {
        state.withLock { state in
            let sorted = state.all.sorted()
            return String(format: "webhooks: %d distinct events delivered; %d users' first event, latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                events, sorted.count, WebhookLatencies.percentile(sorted, 0.5) * 1000, WebhookLatencies.percentile(sorted, 0.99) * 1000, (sorted.last ?? 0) * 1000)
        }
    }

    /// The `fraction` percentile of sorted values; 0 when there are none.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[Int(Double(sorted.count - 1) * fraction)]
    }
}
