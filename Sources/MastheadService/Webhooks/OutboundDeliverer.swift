import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadStorage

/// Delivers the outbox's messages: claims a batch of the messages due first (in one commit,
/// under a lease, so that no other worker of any instance sends them at the same time), POSTs
/// each signed to its target, one after the other, and records their outcomes (in one commit):
/// two commits through the writer for up to ``batch`` messages. Once a target gives no answer,
/// the batch's later messages to it are not sent: they are retried with it.
///
/// Any 2xx is delivered. Anything else (another status, a timeout, a refused connection, an
/// answer longer than ``maxAnswerBytes``) is retried after ``backoff`` (10 s, doubled each
/// attempt, at most an hour) while the retry would come within ``retryWindowMilliseconds`` (a
/// day) of the message's enqueueing; otherwise it is parked (`failed`), visible and replayable.
/// A message whose target is no longer configured is parked without being sent.
/// A worker stopped mid-batch leaves the claims to end with their lease (the requests' timeouts
/// and a minute): the messages are then sent again (at least once).
struct OutboundDeliverer: Sendable {
    let service: EntitlementService
    let transport: HTTPSTransport
    /// The key deliveries are signed with.
    let secret: [UInt8]

    /// The waits before retries: 10 s, doubled each attempt, at most an hour.
    static let backoff = RetryBackoff(first: 10_000, longest: 3_600_000)
    /// How long after it was enqueued (or replayed) a message is retried: a day.
    static let retryWindowMilliseconds: Int64 = 86_400_000
    /// The most of an answer's body read; a longer answer counts as a failure.
    static let maxAnswerBytes = 64 << 10

    /// A deliverer for `service`'s outbox, POSTing through a transport of its own with the
    /// `webhookTimeoutSeconds` deadline, signing with `MASTHEAD_WEBHOOK_SECRET`.
    init(service: EntitlementService) {
        self.service = service
        transport = HTTPSTransport.withOwnNameLookups(
            timeoutSeconds: Double(service.configuration.webhookTimeoutSeconds), maxResponseBytes: Self.maxAnswerBytes)
        secret = Array(service.configuration.webhookSecret.utf8)
    }

    /// The most messages one claim takes.
    static let batch = 16

    /// How long `count` claimed messages are left to their worker: a request's timeout for each
    /// and a minute.
    func leaseMilliseconds(_ count: Int) -> Int64 { Int64(service.configuration.webhookTimeoutSeconds) * 1000 * Int64(count) + 60_000 }

    /// What one delivery came to.
    struct Attempt: Sendable {
        var claimed: OutboundDelivery
        var outcome: OutboundOutcome
    }

    /// Claims the message due first and delivers it; nil when none is due.
    func deliverNext() throws -> Attempt? { try deliver(upTo: 1).first }

    /// Claims up to `limit` of the messages due first and delivers them, in the order they were
    /// due; empty when none is due.
    /// - Throws: when the database cannot be written (the claims, if taken, end with their lease).
    /// Once `stopping` answers true, the batch's messages not yet sent are given back unsent.
    func deliver(upTo limit: Int, stopping: () -> Bool = { false }) throws -> [Attempt] {
        let batch = try service.claimOutbound(leaseMilliseconds: leaseMilliseconds(limit), limit: limit)
        if batch.isEmpty { return [] }
        var attempts: [Attempt] = []
        // The targets that gave no answer in this batch, with the retry they got.
        var silent: [String: Instant] = [:]
        for claimed in batch {
            let outcome: OutboundOutcome
            if stopping() {
                outcome = .notSent(next: service.clock())
            } else if !isConfigured(claimed.message) {
                // A target taken out of the configuration is not sent to any more: its messages are parked.
                outcome = .failed(status: nil, error: Self.targetNotConfigured)
            } else if let next = silent[claimed.message.target] {
                outcome = .notSent(next: next)
            } else {
                outcome = self.outcome(of: claimed, send(claimed))
                if case .retry(let next, nil, _) = outcome { silent[claimed.message.target] = next }
            }
            attempts.append(Attempt(claimed: claimed, outcome: outcome))
        }
        let recorded = try service.recordOutbound(attempts.map { ($0.claimed, $0.outcome) })
        for (attempt, recorded) in zip(attempts, recorded) {
            service.outbound.count(attempt.outcome, recorded: recorded)
            // A delivery is counted, not logged: at thousands a second the log would hold nothing else.
            let logged =
                switch attempt.outcome {
                case .delivered, .notSent: !recorded
                case .retry, .failed: true
                }
            if logged { service.outbound.note(Self.line(attempt.claimed, attempt.outcome, recorded: recorded)) }
        }
        return attempts
    }

    /// The last error of a message parked because its target is no longer configured.
    static let targetNotConfigured = "target no longer configured"

    /// Whether `message`'s target is still configured (`webhookURLs` for events,
    /// `forwardNotificationsTo` for forwarded notifications), byte for byte.
    func isConfigured(_ message: OutboundMessage) -> Bool {
        let targets =
            switch message.kind {
            case .event: service.configuration.webhookURLs
            case .forward: service.configuration.forwardNotificationsTo
            }
        return targets.contains { $0.utf8.elementsEqual(message.target.utf8) }
    }

    /// POSTs the message, signed now (unless no secret is set); answers the status, or why none came.
    func send(_ delivery: OutboundDelivery) -> Result<Int, DeliveryFailure> {
        let message = delivery.message
        var headers: [(name: String, value: String)] = [("Content-Type", message.contentType), ("Masthead-Event-Id", message.eventId)]
        // Without a secret (forwarding alone) nothing is signed.
        if !secret.isEmpty {
            do throws(SignatureError) {
                let seconds = service.clock().milliseconds / 1000
                headers.append(("Masthead-Signature", try WebhookSignature.header(secret: secret, body: message.body, seconds: seconds)))
            } catch {
                return .failure(DeliveryFailure(reason: "cannot sign: \(error)"))
            }
        }
        headers.append(("User-Agent", "Masthead/\(MastheadVersion.current)"))
        let request = HTTPSTransport.Request(method: "POST", url: message.target, headers: headers, body: message.body)
        switch transport.send(request) {
        case .success(let answer): return .success(answer.status)
        case .failure(let failure): return .failure(DeliveryFailure(failure))
        }
    }

    /// What an attempt that got `result` makes of the message.
    func outcome(of claimed: OutboundDelivery, _ result: Result<Int, DeliveryFailure>) -> OutboundOutcome {
        let status: Int?
        let error: String
        switch result {
        case .success(let answered) where (200..<300).contains(answered): return .delivered(status: answered)
        case .success(let answered): (status, error) = (answered, "HTTP \(answered)")
        case .failure(let failure): (status, error) = (nil, failure.reason)
        }
        let next = service.clock().adding(milliseconds: Self.backoff.wait(afterAttempt: claimed.attempts))
        if next.milliseconds > claimed.enqueued.milliseconds + Self.retryWindowMilliseconds {
            return .failed(status: status, error: "\(error) (attempt \(claimed.attempts); no retry after a day)")
        }
        return .retry(next: next, status: status, error: error)
    }

    /// The log line of an attempt (every one but a delivery recorded): the message's id, kind and event id, never its target (which
    /// may carry a token) nor the secret.
    static func line(_ claimed: OutboundDelivery, _ outcome: OutboundOutcome, recorded: Bool) -> String {
        let name = "message \(claimed.id) (\(claimed.message.kind.rawValue) \(claimed.message.eventId)), attempt \(claimed.attempts)"
        let said: String
        switch outcome {
        case .delivered(let status): said = "delivered \(name): HTTP \(status)"
        case .retry(let next, _, let error): said = "\(name) failed, retried at \(next.milliseconds / 1000) (Unix seconds): \(error)"
        case .failed(_, let error): said = "parked \(name): \(error)"
        case .notSent(let next): said = "\(name) not sent, given back due at \(next.milliseconds / 1000) (Unix seconds)"
        }
        return recorded ? said : said + "; not recorded: its claim had ended (another worker or a replay took it)"
    }
}

/// Why a delivery got no answer, said without its URL (which may carry a token).
struct DeliveryFailure: Error, Sendable {
    var reason: String

    init(reason: String) { self.reason = reason }

    init(_ failure: HTTPSTransport.TransportFailure) {
        switch failure {
        case .invalidURL: reason = "the target is not a usable URL"
        case .network(_, let why): reason = "unreachable: \(why)"
        case .timedOut(_, let milliseconds): reason = "no complete answer within \(milliseconds) ms"
        case .tooLarge(_, let limit): reason = "answered more than \(limit) bytes"
        }
    }
}
