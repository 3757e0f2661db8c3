/// What came of acknowledging a Google Play purchase
/// (``StoreWriter/recordGooglePlayAcknowledgement(token:outcome:now:)``).
public enum GooglePlayAcknowledgement: Hashable, Sendable {
    /// Google took the acknowledgement: nothing more is owed.
    case acknowledged
    /// It failed (`reason`, kept as ``RejectedNotification/keptReason(_:)`` cuts it): tried again after ``retryDelayMilliseconds(afterAttempts:)``.
    case failed(reason: String)
    /// It will never succeed: Google refused it for good (HTTP 400, 404 or 410). Not tried again;
    /// kept with ``givenUpPrefix`` and `reason` as its error.
    case givenUp(reason: String)

    /// How long after its `attempts`-th failed attempt an acknowledgement is tried again, in
    /// milliseconds: a minute, doubling with each failure, at most an hour (Google refunds a
    /// purchase not acknowledged within three days, so it is tried some 70 times by then).
    public static func retryDelayMilliseconds(afterAttempts attempts: Int) -> Int64 {
        min(60_000 << Int64(min(max(attempts - 1, 0), 6)), 3_600_000)
    }

    /// How long a claimed acknowledgement is not claimed again
    /// (``StoreWriter/claimGooglePlayAcknowledgement(now:leaseUntil:)``), unless its outcome is
    /// recorded first: longer than one request to Google may take.
    public static let leaseMilliseconds: Int64 = 5 * 60_000

    /// What begins the kept error of an acknowledgement given up.
    public static let givenUpPrefix = "given up: "
}
