import Foundation
import MastheadAppStore
import MastheadTestSupport
import Testing

/// The outgoing client reads an answer's head and body as HTTP/1.1 frames them, and refuses,
/// naming what is wrong, an answer it cannot frame: every byte from the peer is hostile.
struct TransportFramingTests {
    static func send(_ raw: String, limit: Int = 1 << 20) throws -> Result<HTTPSTransport.Response, HTTPSTransport.TransportFailure> {
        let peer = try HostileHTTPServer(.raw(Array(raw.utf8)))
        defer { peer.stop() }
        return HTTPSTransport(timeoutSeconds: 10, maxResponseBytes: limit).send(HTTPSTransport.Request(method: "GET", url: peer.url + "/"))
    }

    /// Well-framed answers: their status, fields (lower-case names, repeated ones joined) and body.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{}\r\nextra", 200, "{}\r\n"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;ext=1\r\n{\"\r\n3\r\na\":\r\n2\r\n1}\r\n0\r\nTrailer: x\r\n\r\n", 200, "{\"a\":1}"),
        ("HTTP/1.1 201 Created\r\nX-Twice: a\r\nX-Twice: b\r\n\r\nuntil the end", 201, "until the end"),
        ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", 204, ""),
        ("HTTP/1.1 302 Found\r\nLocation: http://elsewhere/\r\nContent-Length: 0\r\n\r\n", 302, ""),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", 200, "ok"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \t;ext\r\n{}\r\nA\r\n0123456789\r\n0 \r\n\r\n", 200, "{}0123456789"),
    ])
    func wellFramedAnswer_isRead(raw: String, status: Int, body: String) throws {
        let result = try Self.send(raw)
        guard case .success(let response) = result else {
            Issue.record("expected an answer, got \(result)")
            return
        }
        #expect(response.status == status)
        #expect(String(decoding: response.body, as: UTF8.self) == body)
        if raw.contains("X-Twice") { #expect(response.headers["x-twice"] == "a, b") }
    }

    /// Answers that cannot be framed fail as network failures naming what is wrong.
    @Test(arguments: [
        ("HTTP/2 200\r\n\r\n", "malformed status line"),
        ("HTTP/1.1 20 OK\r\n\r\n", "malformed status line"),
        ("HTTP/1.1 200 OK\r\n folded: value\r\n\r\n", "malformed header field"),
        ("HTTP/1.1 200 OK\r\nNo colon\r\n\r\n", "malformed header field"),
        ("HTTP/1.1 200 OK\nContent-Length: 0\n\n", "a line without CRLF"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "unsupported Transfer-Encoding"),
        ("HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\na", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5 junk\r\n\r\nhello", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\nhello", "malformed Content-Length"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\na\r\n0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+1\r\na\r\n0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 junk\r\nhello\r\n0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\na\r\n0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x1\r\na\r\n0\r\n\r\n", "malformed chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "malformed chunk: not its size"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "the connection ended inside the body"),
        ("HTTP/1.1 200 OK\r\nContent-Le", "the connection ended inside the head"),
        ("HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n", "head too long"),
    ])
    func unframableAnswer_failsNamingWhy(raw: String, reason: String) throws {
        let result = try Self.send(raw)
        guard case .failure(.network(_, let message)) = result else {
            Issue.record("expected a network failure, got \(result)")
            return
        }
        #expect(message.contains(reason), "\(message)")
    }

    /// A field's value quoted in a failure is cut to about 100 bytes, its control characters
    /// (a bare CR among them) escaped: the failure reaches logs and answers' bodies.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\rX-Forged: 1\u{1B}[2J\r\n\r\n", #"unsupported Transfer-Encoding "gzip\u000DX-Forged: 1\u001B[2J""#),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\u{7F}\u{85}\u{202E}\"\\\r\n\r\n", #"malformed Content-Length "1\u007F\u0085\u202E\"\\""#),
        ("HTTP/1.1 200 OK\r\nContent-Length: " + String(repeating: "9", count: 60_000) + "\r\n\r\n", "malformed Content-Length \"" + String(repeating: "9", count: 100) + "\"…"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "\r", count: 1000) + "\r\n", "malformed chunk size \"" + String(repeating: "\\u000D", count: 16) + "\"…"),
    ])
    func upstreamTextInAFailure_isCutAndEscaped(raw: String, message: String) throws {
        let result = try Self.send(raw)
        guard case .failure(.network(_, let reason)) = result else {
            Issue.record("expected a network failure, got \(result)")
            return
        }
        #expect(reason == message)
        #expect(!reason.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(reason)")
        #expect(reason.utf8.count < 160, "\(reason.utf8.count) bytes")
    }

    /// A body past the limit is refused however it is framed: by its length, a chunk's size, or
    /// the bytes before the end of the connection.
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n0123456789a",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n56789a\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\n\r\n0123456789a",
    ])
    func bodyPastTheLimit_isTooLarge(raw: String) throws {
        let result = try Self.send(raw, limit: 10)
        guard case .failure(.tooLarge(_, 10)) = result else {
            Issue.record("expected tooLarge, got \(result)")
            return
        }
    }
}
