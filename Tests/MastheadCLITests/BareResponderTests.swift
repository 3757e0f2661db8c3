import Glibc
@testable import MastheadBench
import MastheadTestSupport
import Testing

/// The download check's peer in `masthead-bench service`: a bare responder that answers each
/// request, found by its blank line alone, with one fixed response on a kept-open connection.
struct BareResponderTests {
    static let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)

    @Test func eachRequest_getsTheFixedAnswer_evenSplitOrPipelined() throws {
        let responder = BareResponder(response: Self.answer)
        defer { responder.stop() }
        let client = try TestClient(port: UInt16(responder.port))
        // One request split inside its blank line, over two writes: one answer, after the second.
        client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r")
        usleep(50_000)
        client.send("\nGET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\n")
        var received: [UInt8] = []
        #expect(read(client, into: &received, until: 2 * Self.answer.count))
        #expect(received == Self.answer + Self.answer)
        // Three pipelined in one write, the one before them finished: three answers.
        client.send("Host: t\r\n\r\nGET /d HTTP/1.1\r\n\r\nGET /e HTTP/1.1\r\n\r\n")
        received = []
        #expect(read(client, into: &received, until: 3 * Self.answer.count))
        #expect(received == Self.answer + Self.answer + Self.answer)
        // Still open: the next request is answered too.
        client.send("GET /f HTTP/1.1\r\n\r\n")
        received = []
        #expect(read(client, into: &received, until: Self.answer.count))
        #expect(received == Self.answer)
    }

    /// Reads until `count` bytes have come (true), or the connection ends or times out (false).
    private func read(_ client: TestClient, into received: inout [UInt8], until count: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < count {
            let read = chunk.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
            if read <= 0 { return false }
            received += chunk[0..<read]
        }
        return true
    }
}
