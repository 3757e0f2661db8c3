import MastheadAppStore

extension ServiceConfiguration {
    /// What is wrong with the webhook and forwarding settings: each entry of `webhookURLs` and
    /// `forwardNotificationsTo` that is not an absolute http(s) URL (named with its setting and
    /// position, shown without its user, password and query), and `webhookURLs` given without
    /// `MASTHEAD_WEBHOOK_SECRET`. The secret's value is never part of a message.
    func webhookProblems() -> [String] {
        var problems: [String] = []
        for (key, urls) in [("webhookURLs", webhookURLs), ("forwardNotificationsTo", forwardNotificationsTo)] {
            for (index, url) in urls.enumerated() where !HTTPSTransport.accepts(url: url) {
                problems.append("\(key)[\(index)] must be an absolute http:// or https:// URL with a host (no user or password), not \"\(RedactedTarget.text(url))\"")
            }
        }
        if !webhookURLs.isEmpty && webhookSecret.isEmpty {
            problems.append("MASTHEAD_WEBHOOK_SECRET is not set: webhookURLs needs it to sign the events")
        }
        return problems
    }
}
