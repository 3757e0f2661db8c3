import Masthead
import MastheadAppStore
import MastheadClock
import MastheadFormats
import MastheadService

/// `masthead refresh`: re-verifies with Apple the subscriptions about to expire, once.
struct RefreshCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "refresh", summary: "Ask Apple about the subscriptions about to expire, once.",
        description: """
            Asks Apple about every subscription whose expiry lies within the window from now. One
            with signed data is asked of the App Store Server API (Get All Subscription Statuses),
            whose verified answer is applied as a version 2 notification is; this needs the
            MASTHEAD_APP_STORE_KEY_ID, MASTHEAD_APP_STORE_ISSUER_ID and
            MASTHEAD_APP_STORE_PRIVATE_KEY_FILE (or MASTHEAD_APP_STORE_PRIVATE_KEY) secrets, without
            which it is reported as not polled. Receipts are re-verified with verifyReceipt and
            stored like posted receipts. With googlePlayPackageName set, it then tries every Google
            Play acknowledgement owed and records the purchases Google voided within the last 30
            days (the Voided Purchases API, every page; a void recorded before changes nothing). Uses the same configuration as 'masthead serve' and, of its
            secrets, MASTHEAD_APP_STORE_SHARED_SECRET (the verifyReceipt password) and the App Store
            Server API key. It may run beside a running 'masthead serve' on the same database, which
            answers from the stored renewals at once. Exit status 1 when any failed.

            With --notifications-since it fills a gap instead (after an outage): it asks Get
            Notification History (production) for the version 2 notifications Apple sent from then
            until --notifications-until (default: now), verifies each signed payload, and applies it
            exactly as the same notification posted to the service is: once per notificationUUID,
            so ones received already are counted and skipped, and running it again changes nothing.
            Apple keeps 180 days of history: the range must start within the last 180 days and end
            after it starts, no later than now. Needs the App Store Server API key.
            """,
        options: ["catalog", "database"].compactMap(ServiceConfiguration.setting).map(ServeCommand.option) + [
            CommonOptions.configOption("JSON file of settings (see 'masthead serve --help')."),
            .value("within", "DURATION", "How far ahead to look: 3d, 12h, 30m, 45s (default: pollingWindowSeconds)."),
            .value("notifications-since", "INSTANT", "Apply the notifications Apple sent since this RFC 3339 instant, instead of polling."),
            .value("notifications-until", "INSTANT", "The end of --notifications-since's range (default: now)."),
        ])
    /// Apple's notification history reaches 180 days back.
    static let notificationHistoryDays: Int64 = 180
    let configuration: ServiceConfiguration
    let window: Int64
    /// The notification history's range, instead of polling; nil to poll.
    let notifications: (since: Instant, until: Instant)?

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        try self.init(parsed, environment: ServeCommand.secretsFromEnvironment())
    }

    /// Reads the arguments, with the secrets from `environment`.
    init(_ parsed: Arguments, environment: [String: String]) throws(CLIError) {
        // The notification history asks the App Store Server API only; polling re-verifies receipts with the shared secret.
        let use: ServiceConfiguration.Use = parsed.value("notifications-since") == nil ? .refresh : .appStoreServerAPI
        configuration = try ServeCommand.configuration(parsed, command: Self.spec.name, environment: environment, use: use).configuration
        if let text = parsed.value("within") {
            guard let milliseconds = ServiceConfiguration.milliseconds(fromDuration: text) else {
                throw CLIError.usage("refresh: --within must be a number followed by d, h, m or s, such as 3d")
            }
            window = milliseconds
        } else {
            window = Int64(configuration.pollingWindowSeconds) * 1000
        }
        notifications = try Self.notificationRange(parsed, now: SystemClock.now())
    }

    /// `--notifications-since` and `--notifications-until`, checked against Apple's limits.
    static func notificationRange(_ parsed: Arguments, now: Instant) throws(CLIError) -> (since: Instant, until: Instant)? {
        guard let sinceText = parsed.value("notifications-since") else {
            if parsed.value("notifications-until") != nil { throw CLIError.usage("refresh: --notifications-until needs --notifications-since") }
            return nil
        }
        if parsed.value("within") != nil { throw CLIError.usage("refresh: --within polls; --notifications-since applies the notification history instead: give one") }
        guard let since = DateText.rfc3339(sinceText) else {
            throw CLIError.usage("refresh: --notifications-since must be an RFC 3339 instant such as 2020-07-02T00:00:00Z, not \"\(sinceText)\"")
        }
        var until = now
        if let text = parsed.value("notifications-until") {
            guard let instant = DateText.rfc3339(text) else {
                throw CLIError.usage("refresh: --notifications-until must be an RFC 3339 instant such as 2020-07-02T00:00:00Z, not \"\(text)\"")
            }
            until = instant
        }
        let limit = notificationHistoryDays * 86_400_000
        guard since < until else { throw CLIError.usage("refresh: --notifications-since (\(since)) must be before --notifications-until (\(until))") }
        guard until <= now else { throw CLIError.usage("refresh: --notifications-until (\(until)) is in the future") }
        guard since >= now.adding(milliseconds: -limit) else {
            throw CLIError.usage("refresh: --notifications-since (\(since)) is more than \(notificationHistoryDays) days ago: Apple keeps \(notificationHistoryDays) days of notification history")
        }
        return (since, until)
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let (service, appStoreServerAPI) = try ServeCommand.openServiceAskingApple(configuration)
        defer { service.close() }
        if let notifications { return try applyNotificationHistory(notifications, service: service, client: appStoreServerAPI, output: output) }
        let report: Refresher.Report
        do {
            let refresher = Refresher(service: service, client: VerifyReceiptClient(configuration: configuration), appStoreServerAPI: appStoreServerAPI)
            report = try refresher.run(within: window)
        } catch {
            throw CLIError.cannotRead(path: "\(configuration.database)", reason: "\(error)")
        }
        var text = "refresh: \(report.summary)\n"
        for failure in report.failures { text += "  \(failure.originalTransactionId): \(failure.reason)\n" }
        let googlePlay = Self.refreshGooglePlay(service)
        try output.write(text + googlePlay.lines)
        return report.failures.isEmpty && !googlePlay.failed ? 0 : 1
    }
}

extension RefreshCommand {
    /// Asks Get Notification History for the range and applies what it gives as received notifications.
    func applyNotificationHistory(
        _ range: (since: Instant, until: Instant), service: EntitlementService, client: AppStoreServerAPIClient?, output: OutputFile
    ) throws(CLIError) -> Int32 {
        guard let client else {
            throw CLIError.configuration(
                "refresh: --notifications-since needs the App Store Server API key: set MASTHEAD_APP_STORE_KEY_ID, MASTHEAD_APP_STORE_ISSUER_ID and MASTHEAD_APP_STORE_PRIVATE_KEY_FILE")
        }
        let heading = "refresh: notifications from \(range.since) until \(range.until)"
        let entries: [NotificationHistoryEntry]
        do { entries = try client.notificationHistory(from: range.since, to: range.until) } catch {
            try output.write("\(heading): failed: \(error)\n")
            return 1
        }
        let report = service.applyNotificationHistory(entries)
        var text = "\(heading): \(report.summary)\n"
        for failure in report.failures { text += "  \(failure.uuid): \(failure.reason)\n" }
        try output.write(text)
        return report.failures.isEmpty ? 0 : 1
    }
}
