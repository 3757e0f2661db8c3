import Dispatch
import Glibc
import MastheadHTTP
import MastheadTestSupport
import Testing

/// Many requests pipelined in one burst on one connection.
struct PipelinedBurstTests {
    /// Found by the soak run (`masthead-bench soak`): every pipelined request answered at once
    /// used to start the next one from inside the previous one's write, so a burst of a few
    /// thousand small requests overflowed the event loop's stack and killed the server.
    @Test func burstOfPipelinedRequests_isAnsweredWhole() throws {
        let server = try HTTPServerTests.start()
        defer { HTTPServerTests.stop(server) }
        let client = try TestClient(port: server.port, timeoutMilliseconds: 20_000)
        let count = 30_000
        let burst = Array(String(repeating: "GET /p HTTP/1.1\r\nHost: t\r\n\r\n", count: count - 1).utf8) + Array("GET /last HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8)
        // Written from another thread while this one reads, so neither side's buffers fill up.
        let writer = DispatchGroup()
        let descriptor = client.descriptor
        DispatchQueue.global().async(group: writer) {
            var offset = 0
            while offset < burst.count {
                let sent = burst.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, burst.count - offset, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                offset += sent
            }
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
            if read <= 0 { break }
            received += chunk[0..<read]
        }
        writer.wait()
        let answers = received.ranges(of: Array("HTTP/1.1 200 ".utf8)).count
        #expect(answers == count)
        #expect(String(decoding: received.suffix(10), as: UTF8.self) == "GET last  ")
    }
}
