import Foundation
import Masthead
import MastheadStorage

/// Decides when readers' entitlements changed and writes `entitlements.changed` events into the
/// outbox, in the caller's transaction (the commit queue's, right after the job that changed them).
///
/// With reporting locked against other writers (``EntitlementReportStore/lockReporting()``), for
/// each reader, their history read through the same connection, every publication is evaluated as of now in
/// production, and in the sandbox when the reader has sandbox transactions or was reported there
/// before; a publication the reader holds nothing for (no transaction, no grant) answers nothing
/// unless it was reported before. Where (state, readable count) differs from the answer last
/// reported (nothing at all before the first event), one event per webhook URL is written, the
/// sequence moves on and the new answer is stored with when it may next change with time alone,
/// which ``sweep(users:store:catalog:now:)`` looks at.
struct EntitlementReporter: Sendable {
    /// The webhook URLs (`webhookURLs`), each sent every event.
    let targets: [String]

    /// How many instants a time-made change is looked for at, from the previous answer's end
    /// to now, before `at` is said to be now (answers change at a few instants a month).
    static let maxSteps = 64

    /// Reports what a write changed for `users` as of `now`: `at` is `now`.
    func report(users: [String], store: any EntitlementStore, catalog: Catalog, now: Instant) throws(StorageError) {
        try report(users: users, store: store, catalog: catalog, now: now, timeMade: false)
    }

    /// Reports what time alone changed for `users` (their answers' stable ranges have ended):
    /// `at` is the first instant the answer differed from the one reported.
    func sweep(users: [String], store: any EntitlementStore, catalog: Catalog, now: Instant) throws(StorageError) {
        try report(users: users, store: store, catalog: catalog, now: now, timeMade: true)
    }

    private func report(users: [String], store: any EntitlementStore, catalog: Catalog, now: Instant, timeMade: Bool) throws(StorageError) {
        if users.isEmpty { return }
        try store.lockReporting()
        var messages: [OutboundMessage] = []
        for userId in Set(users.map(ExactKey.init)).sorted().map(\.text) {
            guard let reported = try store.reportedEntitlements(forUser: userId) else { continue }
            let history = try store.history(forUser: userId)
            var evaluated: Set<ReportedEntitlement.Key> = []
            for environment in Self.environments(history, reported) {
                let engine = EntitlementEngine(catalog: catalog)
                let held = engine.evaluate(history, at: now, environment: environment).publications
                for publication in catalog.publications {
                    let key = ReportedEntitlement.Key(publicationId: publication.id, environment: environment)
                    evaluated.insert(key)
                    let last = reported[key]
                    let entitlement: PublicationEntitlement
                    if let found = held.first(where: { $0.publication.id.sameBytes(as: publication.id) }) {
                        entitlement = found
                    } else if last != nil {
                        entitlement = engine.evaluate(history, publication: publication, at: now, environment: environment)
                    } else {
                        continue
                    }
                    let answer = ReportedEntitlement.Answer(state: entitlement.status.state, readable: entitlement.readable.count)
                    let due = entitlement.stable.upperBound == .distantFuture ? nil : entitlement.stable.upperBound
                    let before = last?.answer ?? .nothing
                    let sequence = last?.sequence ?? 0
                    if answer != before {
                        let at = timeMade ? Self.changeInstant(engine, history, publication, environment, from: last?.due, to: now, before) : now
                        let event = EntitlementEvent(
                            id: UUID().uuidString.lowercased(), userId: userId, publicationId: publication.id, environment: environment, at: at,
                            sequence: sequence + 1, before: before, after: answer)
                        messages += event.messages(to: targets)
                        try store.storeReportedEntitlement(.init(answer: answer, sequence: sequence + 1, due: due), forUser: userId, key: key)
                    } else if last == nil ? due != nil : last?.due != due {
                        try store.storeReportedEntitlement(.init(answer: answer, sequence: sequence, due: due), forUser: userId, key: key)
                    }
                }
            }
            // A publication no longer in the catalog is not due again (the sweeper would find it every time).
            for (key, last) in reported where last.due != nil && !evaluated.contains(key) {
                try store.storeReportedEntitlement(.init(answer: last.answer, sequence: last.sequence, due: nil), forUser: userId, key: key)
            }
        }
        if !messages.isEmpty { try store.enqueueOutbound(messages, now: now) }
    }

    /// Production always; the sandbox when the reader has a sandbox transaction or was reported there.
    private static func environments(_ history: PurchaseHistory, _ reported: [ReportedEntitlement.Key: ReportedEntitlement]) -> [Environment] {
        let sandbox = history.transactions.contains { $0.environment == .sandbox } || reported.keys.contains { $0.environment == .sandbox }
        return sandbox ? [.production, .sandbox] : [.production]
    }

    /// The first instant from `from` (the previous answer's end) to `now` at which the answer
    /// differs from `before`, stepping from one stable range to the next; `now` when there is no
    /// `from` or it takes more than ``maxSteps`` steps.
    private static func changeInstant(
        _ engine: EntitlementEngine, _ history: PurchaseHistory, _ publication: Publication, _ environment: Environment, from: Instant?, to now: Instant,
        _ before: ReportedEntitlement.Answer
    ) -> Instant {
        guard var instant = from else { return now }
        for _ in 0..<maxSteps where instant < now {
            let entitlement = engine.evaluate(history, publication: publication, at: instant, environment: environment)
            if ReportedEntitlement.Answer(state: entitlement.status.state, readable: entitlement.readable.count) != before { return instant }
            instant = entitlement.stable.upperBound
        }
        return now
    }
}
