import MastheadAudit
import Testing

/// RFC 4180 fields and rows, as the audit's CSV output and the generated grants write them.
struct CSVTests {
    @Test func field_quotesOnlyWhatNeedsIt() {
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.field("two\nlines") == "\"two\nlines\"")
    }

    @Test func row_joinsFieldsAndEndsTheLine() {
        #expect(CSV.row(["alice", "the-monthly", "2020-02 2020-03", "a,b"]) == "alice,the-monthly,2020-02 2020-03,\"a,b\"\n")
    }
}
