import MastheadHTTP
import Testing

/// The request parser on its own, fed the way the event loop feeds it.
struct HTTPRequestParserTests {
    static let parser: HTTPRequestParser = {
        var configuration = HTTPServerConfiguration()
        configuration.maxRequestLineBytes = 64
        return HTTPRequestParser(configuration: configuration)
    }()

    /// A request whose request line is `length` bytes long.
    static func request(lineLength length: Int) -> [UInt8] {
        let line = "GET /" + String(repeating: "a", count: length - 14) + " HTTP/1.1"
        precondition(line.utf8.count == length)
        return Array((line + "\r\nHost: localhost\r\n\r\n").utf8)
    }

    /// What the parser answers once all of `bytes` arrived, after first seeing `received` of them.
    static func parse(_ bytes: [UInt8], firstReceived received: Int) -> (first: String, last: String) {
        bytes.withUnsafeBufferPointer { buffer in
            let first = describe { () throws(HTTPError) in try parser.parse(UnsafeBufferPointer(rebasing: buffer[..<received])) }
            guard case .incomplete(let searched)? = try? parser.parse(UnsafeBufferPointer(rebasing: buffer[..<received])) else { return (first, "") }
            return (first, describe { () throws(HTTPError) in try parser.parse(buffer, headSearchedUpTo: searched) })
        }
    }

    static func describe(_ parse: () throws(HTTPError) -> HTTPRequestParser.Outcome) -> String {
        let outcome: HTTPRequestParser.Outcome
        do { outcome = try parse() } catch { return "failure \(error.status)" }
        return switch outcome {
        case .incomplete: "incomplete"
        case .request(let request, let consumed, _): "\(request.method) \(request.target.utf8.count) bytes, consumed \(consumed)"
        case .head(let head, let bodyBytes, _, let expectsContinue):
            "head \(head.method) of a \(bodyBytes)-byte body\(expectsContinue ? ", expects continue" : "")"
        }
    }

    /// Found by the http-request fuzz target (Tests/Fuzz/Crashes/http-request/request-line-at-limit-in-pieces):
    /// a request line of exactly the limit was refused with 414 when its CR or CRLF arrived
    /// before the rest of the head, and accepted when the head arrived whole.
    @Test(arguments: [65, 66])
    func requestLineOfTheLimit_isAccepted_whenItsLineEndArrivesBeforeTheRestOfTheHead(received: Int) {
        let bytes = Self.request(lineLength: 64)
        #expect(Self.parse(bytes, firstReceived: received) == ("incomplete", "GET 51 bytes, consumed \(bytes.count)"))
    }

    @Test(arguments: [65, 66, 70])
    func requestLineOverTheLimit_isRefused414_wholeOrInPieces(received: Int) {
        let bytes = Self.request(lineLength: 65)
        #expect(Self.parse(bytes, firstReceived: received).first == "failure 414")
        #expect(Self.parse(bytes, firstReceived: bytes.count).first == "failure 414")
    }

    /// What the parser answers for `text` arriving whole.
    static func parse(_ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { buffer in describe { () throws(HTTPError) in try parser.parse(buffer) } }
    }

    /// The error the parser throws for `text` arriving whole, if any.
    static func error(_ text: String) -> HTTPError? {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            do throws(HTTPError) { _ = try parser.parse(buffer) } catch { return error }
            return nil
        }
    }

    /// RFC 9112 §6.3: a message with both is ambiguous framing (request smuggling), refused 400.
    @Test func contentLengthWithTransferEncoding_isRefusedAsAmbiguousFraming() {
        #expect(Self.error("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc") == .ambiguousFraming)
        #expect(Self.error("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc") == .ambiguousFraming)
        #expect(Self.error("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == .unsupportedTransferEncoding)
    }

    /// RFC 9110 §5.5: a field value may hold visible characters, spaces, tabs and obs-text only.
    @Test(arguments: ["a\rb", "a\u{0}b", "a\u{1}b", "a\u{1B}b", "a\u{7F}b"])
    func headerValueWithAControlByte_isRefused400(value: String) {
        let error = Self.error("GET /x HTTP/1.1\r\nHost: h\r\nX-Bad: \(value)\r\n\r\n")
        #expect(error == .invalidHeaderValue(name: "x-bad"))
        #expect(error?.status == 400)
    }

    @Test func headerValueWithTabsAndObsText_isAccepted() {
        #expect(Self.parse("GET /x HTTP/1.1\r\nHost: h\r\nX-Fine: a\tb \u{E9}\r\n\r\n").hasPrefix("GET 2 bytes"))
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without `Host`, or any request with several, is 400.
    @Test func hostMissingFromHTTP11_orGivenTwice_isRefused400() {
        #expect(Self.error("GET /x HTTP/1.1\r\nAccept: */*\r\n\r\n") == .missingHost)
        #expect(Self.error("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == .severalHosts)
        #expect(Self.error("GET /x HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n") == .severalHosts)
        #expect(HTTPError.missingHost.status == 400 && HTTPError.severalHosts.status == 400)
        // HTTP/1.0 needs none.
        #expect(Self.parse("GET /x HTTP/1.0\r\n\r\n").hasPrefix("GET 2 bytes"))
    }

    /// A request whose body has not all arrived is reported by its head once, before its body, so
    /// that it can be refused unread; then it is incomplete until the body is whole.
    @Test func headOfAnIncompleteBody_isReportedOnce_beforeTheBody() throws {
        let bytes = Array("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc".utf8)
        let (first, again) = bytes.withUnsafeBufferPointer { buffer in
            (Self.describe { () throws(HTTPError) in try Self.parser.parse(buffer) },
             Self.describe { () throws(HTTPError) in try Self.parser.parse(buffer, headReported: true) })
        }
        #expect(first == "head POST of a 10-byte body")
        #expect(again == "incomplete")
        #expect(Self.parse("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n") == "head POST of a 5-byte body, expects continue")
        // A body that came with its head is no head to check: the request is whole.
        #expect(Self.parse("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc").hasPrefix("POST 2 bytes"))
    }
}
