/// What came of acknowledging a Google Play purchase
/// (``StoreWriter/recordGooglePlayAcknowledgement(token:outcome:now:)``).
public enum GooglePlayAcknowledgement: Hashable, Sendable {
    /// Google took the acknowledgement: nothing more is owed.
    case acknowledged
    /// It failed (`reason`, kept as ``RejectedNotification/keptReason(_:)`` cuts it): tried again after ``retryDelayMilliseconds(afterAttempts:)``.
    case failed(reason: String)

    /// How long after its `attempts`-th failed attempt an acknowledgement is tried again, in
    /// milliseconds: a minute, doubling with each failure, at most an hour (Google refunds a
    /// purchase not acknowledged within three days, so it is tried some 70 times by then).
    public static func retryDelayMilliseconds(afterAttempts attempts: Int) -> Int64 {
        min(60_000 << Int64(min(max(attempts - 1, 0), 6)), 3_600_000)
    }
}
