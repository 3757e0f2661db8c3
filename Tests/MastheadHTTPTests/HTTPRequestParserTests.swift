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
        case .expectsContinue: "expects continue"
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
}
