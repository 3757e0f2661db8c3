import Masthead
import MastheadFormats
import MastheadJSON
import Testing

/// Reading a publisher's grant (R17) from JSON: both shapes, dates, and every refusal naming
/// its field.
struct GrantDecoderTests {
    static func grant(_ json: String, grantId: String? = nil) throws(FormatError) -> Grant {
        let root: JSONValue
        do { root = try JSONDocument(parsing: Array(json.utf8)).root } catch { throw FormatError.invalidJSON(error) }
        return try GrantDecoder.grant(root, grantId: grantId)
    }

    static func refusal(_ json: String, grantId: String? = nil) -> String? {
        do {
            _ = try grant(json, grantId: grantId)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func span_andIssueGrant_read() throws {
        let span = try Self.grant(
            #"{"grantId": "g-123", "source": "print", "publications": ["weekly", "monthly"], "access": "streaming", "window": 4, "start": "2020-01-01", "end": "2021-01-01T00:00:00Z"}"#)
        #expect(span.grantId == "g-123" && span.source == "print")
        #expect(span.scope == .span(publications: ["weekly", "monthly"], access: .streaming, window: 4))
        #expect(span.start == Instant(milliseconds: 1_577_836_800_000))
        #expect(span.end == Instant(milliseconds: 1_609_459_200_000))
        #expect(span.revokedAt == nil)
        let issues = try Self.grant(
            #"{"grantId": "mg-1", "source": "makeGood", "publication": "weekly", "issues": ["w1", "w2"], "start": "2020-04-02T09:00:00+02:00", "revokedAt": "2020-05-01", "end": null}"#)
        #expect(issues.scope == .issues(publication: "weekly", issueIds: ["w1", "w2"]))
        #expect(issues.start == Instant(milliseconds: 1_585_810_800_000))
        #expect(issues.revokedAt == Instant(milliseconds: 1_588_291_200_000))
        // Open-ended when `end` is absent.
        #expect(try Self.grant(#"{"grantId": "c", "source": "comp", "publications": ["weekly"], "access": "archive", "start": "2020-01-01"}"#).end == nil)
    }

    @Test func grantIdFromTheAddress_bodyMayRepeatItOrLeaveItOut() throws {
        let body = #"{"source": "gift", "publications": ["weekly"], "access": "archive", "start": "2020-01-01"}"#
        #expect(try Self.grant(body, grantId: "from-url").grantId == "from-url")
        #expect(try Self.grant(#"{"grantId": "from-url", "source": "gift", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, grantId: "from-url").grantId == "from-url")
        #expect(
            Self.refusal(#"{"grantId": "other", "source": "gift", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, grantId: "from-url")?
                .contains("$.grantId") == true)
        // Exact bytes: a canonically equivalent spelling is another id.
        #expect(
            Self.refusal(#"{"grantId": "cafe\u0301", "source": "gift", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, grantId: "caf\u{E9}")
                != nil)
    }

    @Test(arguments: [
        (#"{"source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.grantId"),
        (#"{"grantId": "g", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.source"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive"}"#, "$.start"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "start": "2020-01-01"}"#, "$.access"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archival", "start": "2020-01-01"}"#, "$.access"),
        (#"{"grantId": "g", "source": "print", "publications": [], "access": "archive", "start": "2020-01-01"}"#, "$.publications"),
        (#"{"grantId": "g", "source": "print", "publications": ["w", "w"], "access": "archive", "start": "2020-01-01"}"#, "$.publications[1]"),
        (#"{"grantId": "g", "source": "print", "publications": ["w", 3], "access": "archive", "start": "2020-01-01"}"#, "$.publications[1]"),
        (#"{"grantId": "g", "source": "print", "publications": "w", "access": "archive", "start": "2020-01-01"}"#, "$.publications"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-02-30"}"#, "$.start"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "start": "01/02/2020"}"#, "$.start"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-03-01", "end": "2020-02-29"}"#, "$.end"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "window": 2, "start": "2020-01-01"}"#, "$.window"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "streaming", "window": 0, "start": "2020-01-01"}"#, "$.window"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01", "strat": "x"}"#, "$.strat"),
        (#"{"grantId": "g", "source": "print", "publications": ["w"], "publication": "w", "issues": ["a"], "access": "archive", "start": "2020-01-01"}"#, "$.publication"),
        (#"{"grantId": "g", "source": "makeGood", "publication": "w", "issues": [], "start": "2020-01-01"}"#, "$.issues"),
        (#"{"grantId": "g", "source": "makeGood", "publication": "w", "issues": ["a"], "start": "2020-01-01", "end": "2020-02-01"}"#, "$.end"),
        (#"{"grantId": "g\u0000x", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.grantId"),
        (#"{"grantId": "", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.grantId"),
        (#"{"grantId": "licence:acme", "source": "licence", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.grantId"),
        (#"{"grantId": "gift:5", "source": "gift", "publications": ["w"], "access": "archive", "start": "2020-01-01"}"#, "$.grantId"),
        (#"["not", "an", "object"]"#, "$"),
    ])
    func refusal_namesTheField(json: String, path: String) {
        let message = Self.refusal(json)
        #expect(message?.contains(path) == true, "\(message ?? "accepted")")
    }

    @Test func grantIdFromTheAddress_isHeldToTheSameRules() {
        let body = #"{"source": "print", "publications": ["weekly"], "access": "archive", "start": "2020-01-01"}"#
        // Written in the object, an id with a control character is refused; so is it from the address.
        #expect(Self.refusal(#"{"grantId": "g\u0007-1", "source": "print", "publications": ["weekly"], "access": "archive", "start": "2020-01-01"}"#) != nil)
        #expect(Self.refusal(body, grantId: "g\u{7}-1")?.contains("$.grantId") == true)
        #expect(Self.refusal(body, grantId: "")?.contains("$.grantId") == true)
    }

    @Test func dateAloneAsEnd_includesThatDay_asStartOrRevocation_beginsIt() throws {
        let grant = try Self.grant(
            #"{"grantId": "g-123", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01", "end": "2020-12-31", "revokedAt": "2020-06-30"}"#)
        #expect(grant.start == GrantDecoder.instant("2020-01-01T00:00:00Z"))
        #expect(grant.end == GrantDecoder.instant("2021-01-01T00:00:00Z"))
        #expect(grant.revokedAt == GrantDecoder.instant("2020-06-30T00:00:00Z"))
        #expect(grant.label == "print subscription g-123, 2020-01-01 – 2020-12-31, revoked 2020-06-30")
        // An RFC 3339 end is exclusive as written.
        let exact = try Self.grant(#"{"grantId": "g", "source": "print", "publications": ["w"], "access": "archive", "start": "2020-01-01", "end": "2020-12-31T00:00:00Z"}"#)
        #expect(exact.end == GrantDecoder.instant("2020-12-31T00:00:00Z"))
        #expect(exact.label == "print subscription g, 2020-01-01 – 2020-12-30")
        // A one-day grant: start and end the same date.
        let day = try Self.grant(#"{"grantId": "d", "source": "comp", "publications": ["w"], "access": "archive", "start": "2020-03-01", "end": "2020-03-01"}"#)
        #expect(day.label == "complimentary access d, 2020-03-01 – 2020-03-01")
    }

    @Test func tooManyIds_areRefusedAtTheFirstOneOver() {
        let publications = (0...GrantDecoder.maxPublications).map { "\"p\($0)\"" }.joined(separator: ",")
        let message = Self.refusal(#"{"grantId": "g", "source": "print", "publications": ["# + publications + #"], "access": "archive", "start": "2020-01-01"}"#)
        #expect(message?.contains("$.publications[\(GrantDecoder.maxPublications)]") == true)
    }

    @Test func grantsArray_refusesAnIdGivenTwice() throws {
        let root = try JSONDocument(
            parsing: Array(
                #"[{"grantId": "a", "source": "comp", "publications": ["w"], "access": "archive", "start": "2020-01-01"}, {"grantId": "a", "source": "comp", "publications": ["w"], "access": "archive", "start": "2020-02-01"}]"#
                    .utf8)
        ).root
        #expect(throws: FormatError.self) { try GrantDecoder.grants(root, path: "$.grants") }
        do {
            _ = try GrantDecoder.grants(root, path: "$.grants")
        } catch {
            #expect(error.description.contains("$.grants[1].grantId"))
        }
    }

    @Test func instant_dateAloneIsMidnightUTC_andRFC3339() {
        #expect(GrantDecoder.instant("2020-02-29") == Instant(milliseconds: 1_582_934_400_000))
        #expect(GrantDecoder.instant("2020-02-29T00:00:00Z") == Instant(milliseconds: 1_582_934_400_000))
        #expect(GrantDecoder.instant("2019-02-29") == nil)
        #expect(GrantDecoder.instant("2020-2-29") == nil)
        #expect(GrantDecoder.instant("2020-02-29 ") == nil)
        #expect(GrantDecoder.instant("") == nil)
    }
}
