import Masthead
import Testing

/// Merging one access style's intervals into periods (R8), from a publication's mixed list.
struct PeriodMergeTests {
    static func interval(_ id: String, _ from: String, _ to: String, _ access: AccessStyle, kind: IntervalKind = .paid) -> Interval {
        Interval(start: Mock.instant(from), end: Mock.instant(to), kind: kind, access: access, transactionId: id, productId: "p")
    }

    /// Out of order and of both styles: the archive ones merge where they touch or overlap, each
    /// period holding its intervals by start; the streaming one between them is left out.
    @Test func merge_ofOneAccessStyle_joinsTouchingIntervals_andLeavesTheOtherStyleOut() {
        let intervals = [
            Self.interval("c", "2020-05-01T00:00", "2020-06-01T00:00", .archive),
            Self.interval("s", "2020-03-15T00:00", "2020-08-01T00:00", .streaming),
            Self.interval("b", "2020-02-01T00:00", "2020-03-10T00:00", .archive),
            Self.interval("a", "2020-01-01T00:00", "2020-02-01T00:00", .archive),
            Self.interval("d", "2020-05-15T00:00", "2020-05-20T00:00", .archive),
        ]
        let archive = Period.merge(intervals, access: .archive)
        #expect(archive.map(\.start) == [Mock.instant("2020-01-01T00:00"), Mock.instant("2020-05-01T00:00")])
        #expect(archive.map(\.end) == [Mock.instant("2020-03-10T00:00"), Mock.instant("2020-06-01T00:00")])
        #expect(archive.map { $0.intervals.map(\.transactionId) } == [["a", "b"], ["c", "d"]])
        #expect(archive.allSatisfy { $0.access == .archive })
        let streaming = Period.merge(intervals, access: .streaming)
        #expect(streaming.map { $0.intervals.map(\.transactionId) } == [["s"]])
        #expect(Period.merge([], access: .archive).isEmpty)
    }

    /// Intervals of one start and end are ordered by id, then by kind, by its name (a grant may
    /// share an id with a transaction, R17).
    @Test func merge_ordersIntervalsOfOneSpan_byIdThenKind() {
        let intervals = [
            Self.interval("b", "2020-01-01T00:00", "2020-02-01T00:00", .archive),
            Self.interval("a", "2020-01-01T00:00", "2020-02-01T00:00", .archive, kind: .grant),
            Self.interval("a", "2020-01-01T00:00", "2020-02-01T00:00", .archive),
        ]
        let periods = Period.merge(intervals, access: .archive)
        #expect(periods.count == 1)
        #expect(periods.first?.intervals.map { "\($0.transactionId) \($0.kind)" } == ["a grant", "a paid", "b paid"])
    }
}
