import MastheadService

extension RefreshCommand {
    /// With `googlePlayPackageName` set: tries every Google Play acknowledgement owed, then asks
    /// the Voided Purchases API for the last 30 days (every page) and records each void. Answers
    /// the report's lines and whether anything failed.
    static func refreshGooglePlay(_ service: EntitlementService) -> (lines: String, failed: Bool) {
        guard service.configuration.googlePlayEnabled else { return ("", false) }
        var lines = ""
        var failed = false
        do {
            let report = try service.acknowledgeDueGooglePlayPurchases(log: { lines += "refresh: " + $0 })
            lines += "refresh: google play: \(report.acknowledged) acknowledged, \(report.failed) acknowledgements failed (tried again later), \(report.givenUp) given up\n"
            failed = failed || report.failed > 0
        } catch {
            lines += "refresh: google play: acknowledgements not tried: \(error)\n"
            failed = true
        }
        do {
            let report = try service.pollGooglePlayVoidedPurchases()
            lines += "refresh: google play: \(report.listed) voided purchases on \(report.pages) pages, \(report.usersChanged) readers changed\n"
        } catch {
            lines += "refresh: google play: voided purchases not read: \(error)\n"
            failed = true
        }
        return (lines, failed)
    }
}
