@testable import MastheadCrypto
import Testing

/// Instants in messages: RFC 3339, UTC, rounding down to the second before 1970 too.
struct UTCTimeTests {
    @Test(arguments: [
        (0, "1970-01-01T00:00:00Z"),
        (1_593_648_000_000, "2020-07-02T00:00:00Z"),
        (1_582_934_400_250, "2020-02-29T00:00:00.250Z"),
        (2_366_841_600_000, "2045-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_000 * 366, "1968-12-31T00:00:00Z"),
    ] as [(Int64, String)])
    func text_isRFC3339InUTC(milliseconds: Int64, text: String) {
        #expect(UTCTime.text(milliseconds: milliseconds) == text)
    }

    @Test func wholeSecond_roundsDown() {
        #expect(UTCTime.wholeSecond(1_999) == 1_000)
        #expect(UTCTime.wholeSecond(-1) == -1_000)
        #expect(UTCTime.wholeSecond(-1_000) == -1_000)
    }
}
