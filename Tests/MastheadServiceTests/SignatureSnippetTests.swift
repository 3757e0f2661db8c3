import Foundation
import Masthead
@testable import MastheadService
import Testing

/// The Python function of the operating guide's "Verifying a delivery", run with `python3`
/// against signatures the service's signer makes: what a receiver copies works.
struct SignatureSnippetTests {
    /// python3 on the usual paths or the `PATH`, or nil.
    static let python: String? = (["/usr/bin/python3", "/usr/local/bin/python3"]
        + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" })
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The guide's ```` ```python ```` block under `#### Verifying a delivery`.
    static func snippet() throws -> String {
        let text = try OperatingGuideTests.text()
        let section = try #require(text.range(of: "#### Verifying a delivery\n"), "the guide has no section Verifying a delivery")
        let rest = text[section.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex
        let block = try #require(rest[..<end].range(of: "```python\n"), "the section has no Python block")
        let close = try #require(rest[block.upperBound..<end].range(of: "```"), "the Python block is not closed")
        return String(rest[block.upperBound..<close.lowerBound])
    }

    /// Runs the snippet's `verify_masthead_signature(secret, body, header, now)` once; its answer.
    static func verify(_ python: String, snippet: String, secret: String, body: [UInt8], header: String, now: Int64) throws -> Bool {
        let driver = snippet + """

            import sys
            print(verify_masthead_signature(sys.argv[1].encode(), bytes.fromhex(sys.argv[2]), sys.argv[3], float(sys.argv[4])))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", driver, secret, body.map { String(format: "%02x", $0) }.joined(), header, String(now)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(complaint)")
        return printed == "True\n"
    }

    @Test(.enabled(if: python != nil, "python3 is not installed: the guide's verification snippet needs it"))
    func guideSnippet_acceptsTheServicesSignature_andRefusesATamperedBody_aWrongSecret_andAStaleTimestamp() throws {
        let python = try #require(Self.python)
        let snippet = try Self.snippet()
        let secret = "whsec-test-5e3b"
        let body = Array(#"{"id":"0f8e3c1a-4b6d-4e2f-9a7c-1d2e3f4a5b6c","type":"entitlements.changed","userId":"zoë"}"#.utf8)
        let signedAt: Int64 = 1_796_000_000
        let header = try WebhookSignature.header(secret: Array(secret.utf8), body: body, seconds: signedAt)
        #expect(header.hasPrefix("t=\(signedAt),v1="), "\(header)")
        #expect(try Self.verify(python, snippet: snippet, secret: secret, body: body, header: header, now: signedAt + 120))
        #expect(try Self.verify(python, snippet: snippet, secret: secret, body: body, header: header, now: signedAt - 120))
        var tampered = body
        tampered[tampered.count - 3] ^= 0x01
        #expect(try !Self.verify(python, snippet: snippet, secret: secret, body: tampered, header: header, now: signedAt))
        #expect(try !Self.verify(python, snippet: snippet, secret: "whsec-test-5e3c", body: body, header: header, now: signedAt))
        #expect(try !Self.verify(python, snippet: snippet, secret: secret, body: body, header: header, now: signedAt + 301))
        #expect(try !Self.verify(python, snippet: snippet, secret: secret, body: body, header: header, now: signedAt - 301))
    }
}
