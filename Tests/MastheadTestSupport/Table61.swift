/// The rows of the book's Table 6-1 (subscribe Feb 20, renew Mar 20, auto-renew off so it ends
/// Apr 20, resubscribe Jun 17): at each instant, the subscription's state and the issues
/// readable. The shipped receipt and the signed reader must both give these answers.
public enum Table61 {
    /// Instant (RFC 3339), state (`SubscriptionState`'s raw value), readable issue ids.
    public static let rows: [(at: String, state: String, readable: [String])] = [
        ("2020-02-01T12:00:00Z", "none", []),
        ("2020-02-20T12:00:00Z", "active", ["2020-02"]),
        ("2020-03-01T12:00:00Z", "active", ["2020-02", "2020-03"]),
        ("2020-03-20T12:00:00Z", "active", ["2020-02", "2020-03"]),
        ("2020-04-01T12:00:00Z", "active", ["2020-02", "2020-03", "2020-04"]),
        ("2020-04-20T12:00:00Z", "expired", ["2020-02", "2020-03", "2020-04"]),
        ("2020-05-01T12:00:00Z", "expired", ["2020-02", "2020-03", "2020-04"]),
        ("2020-06-01T12:00:00Z", "expired", ["2020-02", "2020-03", "2020-04"]),
        ("2020-06-17T12:00:00Z", "active", ["2020-02", "2020-03", "2020-04", "2020-06"]),
        ("2020-07-01T12:00:00Z", "active", ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"]),
    ]
}
