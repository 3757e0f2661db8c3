import MastheadHTTP
import Testing

/// The request's parts read from its bytes: the same whether it came from the parser or was made
/// in process, and the byte-level readers agree with the strings.
struct HTTPRequestTests {
    /// The request the parser makes of `head` (a whole request without a body).
    static func parsed(_ head: String) throws -> HTTPRequest {
        let parser = HTTPRequestParser(configuration: HTTPServerConfiguration())
        let outcome = try Array(head.utf8).withUnsafeBufferPointer { bytes throws(HTTPError) in try parser.parse(bytes) }
        guard case .request(let request, _, _) = outcome else { throw ParseFailure() }
        return request
    }

    struct ParseFailure: Error {}

    static let target = "/v1//users/a%20b/caf%C3%A9/%FF?at=2020-12-01T00%3A00%3A00Z&x=1&flag&x=2&a+b=c+d&=empty&&"

    @Test func parsedAndMadeInProcess_giveTheSameParts() throws {
        let request = try Self.parsed("GET \(Self.target) HTTP/1.1\r\nHost: h\r\nX-Token:  Bearer  t \t\r\nx-token: second\r\n\r\n")
        let made = HTTPRequest(method: "GET", target: Self.target, headers: [("Host", "h"), ("X-Token", "Bearer  t"), ("x-token", "second")])
        for request in [request, made] {
            #expect(request.method == "GET")
            #expect(request.target == Self.target)
            #expect(request.pathSegments == ["v1", "users", "a b", "café", "\u{FFFD}"])
            #expect(request.pathSegmentCount == 5)
            #expect(request.query == ["at": "2020-12-01T00:00:00Z", "x": "2", "flag": "", "a b": "c d", "": "empty"])
            #expect(request.headers.map(\.name) == ["host", "x-token", "x-token"])
            #expect(request.headers.map(\.value) == ["h", "Bearer  t", "second"])
            #expect(request.header("X-TOKEN") == "Bearer  t")
            #expect(request.header("x-missing") == nil)
            #expect(request.headerUTF8("x-token").map { Array($0) } == Array("Bearer  t".utf8))
        }
    }

    @Test func pathSegments_readAsBytes_matchTheirStrings() throws {
        let request = try Self.parsed("GET \(Self.target) HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(Array(request.pathSegmentBytes(2)) == Array("a b".utf8))
        #expect(Array(request.pathSegmentBytes(4)) == [0xFF])
        #expect(request.pathSegment(3) == "café")
        #expect(request.pathSegment(2, is: "a b"))
        #expect(request.pathSegment(3, is: "café"))
        #expect(!request.pathSegment(3, is: "cafe\u{301}"))
        #expect(!request.pathSegment(0, is: "v"))
        #expect(!request.pathSegment(4, is: "\u{FFFD}"))
    }

    /// The last of repeated names wins, as in the dictionary; names are compared after decoding.
    @Test func queryValue_agreesWithTheQueryDictionary() throws {
        let request = try Self.parsed("GET \(Self.target) HTTP/1.1\r\nHost: h\r\n\r\n")
        for name in ["at", "x", "flag", "a b", "", "missing", "a+b"] {
            #expect(request.queryValue(name) == request.query[name], "\(name)")
        }
        #expect(request.queryValueBytes("at").map { Array($0) } == Array("2020-12-01T00:00:00Z".utf8))
        #expect(try Self.parsed("GET /p%3Fq HTTP/1.1\r\nHost: h\r\n\r\n").queryValue("q") == nil)
        #expect(try Self.parsed("GET /p?q=%E9 HTTP/1.1\r\nHost: h\r\n\r\n").queryValueBytes("q").map { Array($0) } == [0xE9])
    }

    /// A value holding bytes that are not UTF-8 (obs-text) reads as its string does: repaired.
    @Test func headerUTF8_ofObsText_isTheRepairedString() throws {
        var head = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Odd: a".utf8)
        head += [0xFF]
        head += Array("b\r\n\r\n".utf8)
        let parser = HTTPRequestParser(configuration: HTTPServerConfiguration())
        let outcome = try head.withUnsafeBufferPointer { bytes throws(HTTPError) in try parser.parse(bytes) }
        guard case .request(let request, _, _) = outcome else { throw ParseFailure() }
        #expect(request.header("x-odd") == "a\u{FFFD}b")
        #expect(request.headerUTF8("x-odd").map { Array($0) } == Array("a\u{FFFD}b".utf8))
    }

    /// A name made in process that is not ASCII is looked up as a string, as it always was.
    @Test func nonASCIIHeaderName_madeInProcess_isFoundByItsLowercasedString() {
        let request = HTTPRequest(method: "GET", target: "/", headers: [("X-Ünï", "1"), ("x-e\u{301}", "2")])
        #expect(request.headers.map(\.name) == ["x-ünï", "x-e\u{301}"])
        #expect(request.header("X-ÜNÏ") == "1")
        #expect(request.header("x-\u{E9}") == "2")
        #expect(request.header("x-un") == nil)
    }
}
