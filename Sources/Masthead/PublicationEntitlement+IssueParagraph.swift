/// The answer to a support question about one issue, "why can't this reader read it" (or "why
/// can they"), in one paragraph of words (R16).
extension PublicationEntitlement {
    /// One paragraph about the issue with this id (its exact bytes), or nil when the publication
    /// has no such issue: the issue's title, id and publish date, whether it can be read as of
    /// ``at``, the decision's reason in words (``AccessReason/explanation(of:in:)``,
    /// ``Denial/explanation``), and what answers "why": the period, purchase or grant that gives
    /// it and whether it stays readable; the lapse it fell in and what the resubscription unlocked
    /// instead (R11); the first period's start and what it unlocked; the refund or revocation with
    /// its date and transaction; the revoked grant; the streaming period or its window; the day an
    /// unpublished issue comes out.
    ///
    /// Instants are written in UTC as days (`2020-05-01`), with the time when not midnight
    /// (`2020-04-20 12:00`).
    public func paragraph(aboutIssue issueId: String) -> String? {
        guard let index = publication.index(ofIssue: issueId), let access = access(toIssue: issueId) else { return nil }
        let issue = publication.issues[index]
        let named = issue.title.map { "\($0) (\(issue.id))" } ?? issue.id
        let opening = "\(named), \(issue.published > at ? "to be published" : "published") \(Grant.day(issue.published)), "
        switch access {
        case .readable(let reasons):
            let main = reasons[0]
            var text = opening + "can be read as of \(Grant.day(at)) UTC: \(main.explanation(of: issue, in: self))."
            text += context(for: main, issue: issue)
            let others = reasons.dropFirst().map { $0.explanation(of: issue, in: self) }
            if !others.isEmpty { text += " Other reasons: " + others.joined(separator: "; ") + "." }
            return text
        case .notReadable(let denial):
            return opening + "cannot be read as of \(Grant.day(at)) UTC: \(denial.explanation)." + context(for: denial, issue: issue)
        }
    }

    /// What answers "why can they": the period, purchase or grant, and how long it lasts.
    private func context(for reason: AccessReason, issue: Issue) -> String {
        switch reason {
        case .publishedDuringPeriod(let number):
            let giver = periods[number].intervals.first { $0.contains(issue.published) }
            return " Period #\(number), started by \(start(of: number)), \(ending(of: periods[number]))."
                + " Archive access keeps every issue published during a period, also after \(holder(giver)) ends."
        case .unlockedAtPeriodStart(let number):
            return " \(capitalised(start(of: number))) unlocked the latest issue published by then, \(titles(unlockedBy: number))."
                + " Archive access keeps it, also after \(holder(periods[number].intervals.first)) ends."
        case .streaming(let number, let window):
            let scope = window.map { "the latest \($0) published issues" } ?? "every published issue"
            return " Streaming period #\(number), started by \(start(of: number)), \(ending(of: periods[number]))."
                + " Streaming gives \(scope) only while a period is active: once it ends, streaming no longer gives it."
        case .singlePurchase:
            return " An issue bought on its own stays readable unless the purchase is refunded."
        case .granted:
            return " The publisher's issue grant gives it once published, until the grant is revoked."
        case .free:
            return " A free issue is readable by everyone once published."
        }
    }

    /// What answers "why can't they": the lapse, the refund, the grant, the streaming window….
    private func context(for denial: Denial, issue: Issue) -> String {
        switch denial {
        case .notYetPublished:
            return " Whether it can be read once published depends on what the reader has then."
        case .notSubscribed:
            return " Nothing this reader bought or was given covers \(holdsAnything ? "this issue" : publication.title ?? publication.id)."
        case .grantRevoked(_, _, let revokedAt):
            return " A revoked grant gives nothing from its revocation on (\(Grant.day(revokedAt))); what an archive grant gave before it stays readable."
        case .refunded(let transactionId):
            guard let refund = refunded.first(where: { $0.transactionId.sameBytes(as: transactionId) }) else { return "" }
            let time = refund.issueId != nil ? "" : ", not even the issues published in the time it would have paid for (\(Grant.day(refund.start)) to \(Grant.day(refund.end)))"
            // Only a revocation type says it was a refund: without one it is a revocation.
            let what = refund.revocationType == .refundFull || refund.revocationType == .refundProrated ? "refunded" : "revoked"
            return " Apple \(what) transaction \(transactionId) (\(refund.productId)) on \(Grant.day(refund.refundedAt)); "
                + "a \(what) purchase gives nothing\(time)."
        case .endedByRevocation(_, let revokedAt, _, _):
            return " Issues published before \(Grant.day(revokedAt)) stay readable; this one was published after the purchase ended."
        case .publishedBeforeSubscription(let firstStart):
            guard let first = periods.firstIndex(where: { $0.access == .archive && $0.start == firstStart }) else { return "" }
            return " The first period began with \(start(of: first)), which unlocked \(unlocked(by: first, not: issue))."
        case .publishedDuringLapse(let lapseStart, let lapseEnd):
            let ended = periods.last { $0.access == .archive && $0.end == lapseStart }?.intervals.last { $0.end == lapseStart }
            let granted = ended?.kind == .grant
            var text = granted ? " \(capitalised(holder(ended))) ended on \(Grant.day(lapseStart))" : " The subscription lapsed on \(Grant.day(lapseStart))"
            if let lapseEnd, let next = periods.firstIndex(where: { $0.access == .archive && $0.start == lapseEnd }) {
                text += " and \(start(of: next)) unlocked \(unlocked(by: next, not: issue))."
            } else {
                text += granted ? " and no period has started since." : " and has not started again since."
            }
            return text
        case .streamingInactive(let since):
            return (since.map { " The last streaming period ended on \(Grant.day($0));" } ?? "")
                + " streaming gives issues only while a period is active, and gives them again once the reader resubscribes."
        case .outsideStreamingWindow(let window):
            guard let number = periods.firstIndex(where: { $0.access == .streaming && $0.contains(at) }) else { return "" }
            return " Streaming period #\(number), started by \(start(of: number)), \(ending(of: periods[number])) "
                + "and gives only the latest \(window) published issues; this one is older."
        }
    }

    /// "ran until 2020-04-20 12:00" for a period ended by the as-of instant, "runs until …" for
    /// one still running, or "does not end".
    private func ending(of period: Period) -> String {
        if period.end == .distantFuture { return "does not end" }
        return "\(period.end > at ? "runs" : "ran") until \(Grant.day(period.end))"
    }

    /// What started a period, from its earliest interval: "the purchase on 2020-02-20 12:00
    /// (transaction 1000001, com.example.monthly)", "the resubscription on …" after an earlier
    /// period of its style, or "print subscription g-1 starting on …" for a grant (R17).
    private func start(of number: Int) -> String {
        let period = periods[number]
        let day = Grant.day(period.start)
        guard let interval = period.intervals.first else { return "its start on \(day)" }
        if interval.kind == .grant { return "\(Grant.words(forSource: interval.productId)) \(interval.transactionId) starting on \(day)" }
        let again = periods[..<number].contains { $0.access == period.access }
        return "the \(again ? "resubscription" : "purchase") on \(day) (transaction \(interval.transactionId), \(interval.productId))"
    }

    /// The issues a period's start unlocked (R11), by title (else id), joined by "and"; empty
    /// when none.
    private func titles(unlockedBy number: Int) -> String {
        readable.filter { $0.reasons.contains(.unlockedAtPeriodStart(period: number)) }
            .map { $0.issue.title ?? $0.issue.id }.joined(separator: " and ")
    }

    /// "only the latest issue published by then, June 2020, not May 2020", or "no issue (none
    /// was published by then)" (R11).
    private func unlocked(by number: Int, not issue: Issue) -> String {
        let unlocked = titles(unlockedBy: number)
        if unlocked.isEmpty { return "no issue (none was published by then)" }
        return "only the latest issue published by then, \(unlocked), not \(issue.title ?? issue.id)"
    }

    /// What gives archive access through an interval: "the subscription", or a grant by its source
    /// in words and its id, "print subscription g-1" (R17).
    private func holder(_ interval: Interval?) -> String {
        guard let interval, interval.kind == .grant else { return "the subscription" }
        return "\(Grant.words(forSource: interval.productId)) \(interval.transactionId)"
    }

    private func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
