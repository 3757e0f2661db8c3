import Foundation
import MastheadAppStore
import MastheadTestSupport
import Testing

/// The outgoing client over TLS, against a local server with the test CA's certificate for
/// 127.0.0.1 (`Tests/Fixtures/tls`): the answer is read when the certificate chains to the
/// roots trusted and names the host; the handshake is refused otherwise.
struct TransportTLSTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/tls")
    static func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func server(_ answer: HostileHTTPServer.Answer) throws -> HostileHTTPServer {
        try HostileHTTPServer(answer, certificateFile: file("server.pem"), keyFile: file("server-key.pem"))
    }

    /// A certificate chained to the trusted root and issued for the address asked: the answer.
    @Test func trustedCertificate_forTheHost_givesTheAnswer() throws {
        let server = try Self.server(.json(#"{"status": 0}"#))
        defer { server.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 10, rootCertificatesFile: Self.file("ca.pem"))
        let result = transport.send(HTTPSTransport.Request(method: "POST", url: server.url + "/verifyReceipt", body: Array("{}".utf8)))
        guard case .success(let response) = result else {
            Issue.record("expected an answer, got \(result)")
            return
        }
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status": 0}"#)
    }

    /// The same server's certificate does not chain to the system's roots: refused, nothing read.
    @Test func certificate_notChainedToTheTrustedRoots_isRefused() throws {
        let server = try Self.server(.json(#"{"status": 0}"#))
        defer { server.stop() }
        let result = HTTPSTransport(timeoutSeconds: 10).send(HTTPSTransport.Request(method: "GET", url: server.url + "/"))
        guard case .failure(.network(_, let reason)) = result else {
            Issue.record("expected a refused handshake, got \(result)")
            return
        }
        #expect(reason.contains("certificate refused"), "\(reason)")
        #expect(server.counts.requests == 0)
    }

    /// A trusted certificate for 127.0.0.1 does not serve the name `localhost`: refused.
    @Test func certificate_forAnotherHost_isRefused() throws {
        let server = try Self.server(.json(#"{"status": 0}"#))
        defer { server.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 10, rootCertificatesFile: Self.file("ca.pem"))
        let result = transport.send(HTTPSTransport.Request(method: "GET", url: "https://localhost:\(server.port)/"))
        guard case .failure(.network(_, let reason)) = result else {
            Issue.record("expected a refused handshake, got \(result)")
            return
        }
        #expect(reason.contains("certificate refused") && reason.contains("mismatch"), "\(reason)")
        #expect(server.counts.requests == 0)
    }

    /// Over TLS too, a 1 GiB answer is not read past the limit.
    @Test func hugeAnswer_overTLS_stopsReadingAtTheLimit() throws {
        let server = try Self.server(.huge(bytes: 1 << 30, chunked: true))
        defer { server.stop() }
        let transport = HTTPSTransport(timeoutSeconds: 120, rootCertificatesFile: Self.file("ca.pem"))
        let result = transport.send(HTTPSTransport.Request(method: "GET", url: server.url + "/"))
        guard case .failure(.tooLarge) = result else {
            Issue.record("expected tooLarge, got \(result)")
            return
        }
        #expect(server.waitUntilFinished(1, seconds: 60), "the server is still writing: \(server.counts)")
        #expect(server.counts.bodyBytesSent < TransportLimitsTests.mostBytesTaken, "\(server.counts)")
    }
}
