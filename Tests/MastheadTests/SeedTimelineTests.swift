import Masthead
import Testing

/// Seed 000, Tables 6-1 and 6-2, row by row: as of each row's date (events at 12:00 UTC), the
/// state the table gives and exactly the issues available then.
struct SeedTimelineTests {
    /// Table 6-1: subscribe Feb 20, renew Mar 20, auto-renew off so it ends Apr 20, resubscribe Jun 17.
    static let table61 = [
        Mock.renewal("t1", "monthly", "2020-02-20T12:00", "2020-03-20T12:00"),
        Mock.renewal("t2", "monthly", "2020-03-20T11:58", "2020-04-20T12:00", original: "t1"),
        Mock.renewal("t3", "monthly", "2020-06-17T12:00", "2020-07-17T12:00", original: "t1"),
    ]

    static let table61Rows: [(at: String, state: SubscriptionState, readable: [String])] = [
        ("2020-02-01T12:00", .none, []),
        ("2020-02-20T12:00", .active, ["2020-02"]),
        ("2020-03-01T12:00", .active, ["2020-02", "2020-03"]),
        ("2020-03-20T12:00", .active, ["2020-02", "2020-03"]),
        ("2020-04-01T12:00", .active, ["2020-02", "2020-03", "2020-04"]),
        ("2020-04-20T12:00", .expired, ["2020-02", "2020-03", "2020-04"]),
        ("2020-05-01T12:00", .expired, ["2020-02", "2020-03", "2020-04"]),
        ("2020-06-01T12:00", .expired, ["2020-02", "2020-03", "2020-04"]),
        ("2020-06-17T12:00", .active, ["2020-02", "2020-03", "2020-04", "2020-06"]),
        ("2020-07-01T12:00", .active, ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"]),
    ]

    @Test(arguments: table61Rows)
    func table61_row_archive(row: (at: String, state: SubscriptionState, readable: [String])) {
        let result = Mock.evaluate(Self.table61, at: row.at)
        #expect(result.status.state == row.state)
        #expect(result.readableIssueIds == row.readable)
    }

    /// R11's worked example: as of July 2, not May; as of Feb 10, nothing; as of May 15, Feb–Apr.
    @Test func table61_workedExample_R11() {
        #expect(Mock.evaluate(Self.table61, at: "2020-07-02T00:00").readableIssueIds == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])
        #expect(Mock.evaluate(Self.table61, at: "2020-02-10T00:00").readableIssueIds == [])
        #expect(Mock.evaluate(Self.table61, at: "2020-05-15T00:00").readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        let may = Mock.evaluate(Self.table61, at: "2020-07-02T00:00").access(toIssue: "2020-05")
        #expect(may == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2020-04-20T12:00"), lapseEnd: Mock.instant("2020-06-17T12:00"))))
    }

    /// Table 6-1 with Apple extending the renewal `t2` by 7 days (`RENEWAL_EXTENDED`, or a
    /// `RENEWAL_EXTENSION` for many users): a later signed copy of `t2` carries the new
    /// `expiresDate`, which counts (R2.8). Without a signed copy, unsigned copies keep the latest
    /// expiry (R2.3). Pins what the engine does: the rows move by the extension, and an issue
    /// published during it is readable.
    @Test(arguments: [true, false])
    func table61_renewalExtendedSevenDays_laterExpiryCounts_R2_8(signed: Bool) {
        var original = Self.table61[1]
        var extended = original
        extended.expires = Mock.instant("2020-04-27T12:00")
        if signed {
            original.signedDate = Mock.instant("2020-03-20T11:58")
            extended.signedDate = Mock.instant("2020-04-10T09:00")
        }
        let history = [Self.table61[0], extended, original, Self.table61[2]]
        let special = Issue(id: "2020-04-special", published: Mock.instant("2020-04-24T00:00"))
        let publication = Mock.monthly(extraIssues: [special])
        for row in Self.table61Rows {
            let result = Mock.evaluate(history, at: row.at, publication: publication)
            let inExtension = Mock.instant(row.at) >= Mock.instant("2020-04-20T12:00") && Mock.instant(row.at) < Mock.instant("2020-04-27T12:00")
            #expect(result.status.state == (inExtension ? .active : row.state), "\(row.at)")
            let readable = row.readable.filter { $0 <= "2020-04" } + (Mock.instant(row.at) >= special.published ? [special.id] : [])
                + row.readable.filter { $0 > "2020-04" }
            #expect(result.readableIssueIds == readable, "\(row.at)")
        }
        #expect(Mock.evaluate(history, at: "2020-04-27T11:59:59.999", publication: publication).status.state == .active)
        let lapsed = Mock.evaluate(history, at: "2020-04-27T12:00", publication: publication)
        #expect(lapsed.status.state == .expired)
        #expect(
            Mock.evaluate(history, at: "2020-05-15T00:00", publication: publication).access(toIssue: "2020-05")
                == .notReadable(.publishedDuringLapse(lapseStart: Mock.instant("2020-04-27T12:00"), lapseEnd: nil)))
        // Without the extension the special issue falls in the lapse.
        let unextended = Mock.evaluate(Self.table61, at: "2020-07-01T12:00", publication: publication)
        #expect(!unextended.readableIssueIds.contains(special.id))
    }

    /// Table 6-2 (streaming, no window): a billing lapse Apr 20 – May 5.
    static let table62 = [
        Mock.renewal("s1", "reader", "2020-02-20T12:00", "2020-03-20T12:00"),
        Mock.renewal("s2", "reader", "2020-03-20T11:58", "2020-04-20T12:00", original: "s1"),
        Mock.renewal("s3", "reader", "2020-05-05T12:00", "2020-06-05T12:00", original: "s1"),
        Mock.renewal("s4", "reader", "2020-06-05T11:58", "2020-07-05T12:00", original: "s1"),
    ]

    static let table62Rows: [(at: String, state: SubscriptionState, readable: [String])] = [
        ("2020-02-20T12:00", .active, ["2020-01", "2020-02"]),
        ("2020-03-20T12:00", .active, ["2020-01", "2020-02", "2020-03"]),
        ("2020-04-19T12:00", .active, ["2020-01", "2020-02", "2020-03", "2020-04"]),
        ("2020-04-20T12:00", .expired, []),
        ("2020-05-05T12:00", .active, ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05"]),
        ("2020-06-05T12:00", .active, ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05", "2020-06"]),
    ]

    @Test(arguments: table62Rows)
    func table62_row_streaming(row: (at: String, state: SubscriptionState, readable: [String])) {
        let result = Mock.evaluate(Self.table62, at: row.at)
        #expect(result.status.state == row.state)
        #expect(result.readableIssueIds == row.readable)
    }

    @Test func table62_lapse_explainsStreamingInactive() {
        let result = Mock.evaluate(Self.table62, at: "2020-04-25T00:00")
        #expect(result.access(toIssue: "2020-03") == .notReadable(.streamingInactive(since: Mock.instant("2020-04-20T12:00"))))
        #expect(result.lapses.count == 1)
        #expect(result.lapses.first?.end == nil)
    }
}
