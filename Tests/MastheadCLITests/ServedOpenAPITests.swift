import Foundation
import Glibc
import Masthead
@testable import MastheadService
import MastheadTestSupport
import Testing

/// `GET /openapi.json` from the `masthead` binary: the document is compiled in, so a copy of the
/// binary on its own, run from another folder, serves `openapi.json` as it is in the source tree.
struct ServedOpenAPITests {
    @Test func servedDocument_isTheSourceFile_withTheVersion_fromACopyOfTheBinaryAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Only the binary and the catalog: no resource bundle beside it, no build folder nearby.
        let binary = folder.appendingPathComponent("masthead")
        try Self.copyExecutable(Tool.binary.path, to: binary.path)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("Catalog"), withDestinationURL: Tool.root.appendingPathComponent("Catalog"))
        let server = try ServerProcess(database: folder.appendingPathComponent("masthead.sqlite").path, executable: binary, directory: folder)
        let response = try TestClient(port: server.port).request("GET", "/openapi.json")
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")

        let source = try String(contentsOf: Tool.root.appendingPathComponent("Sources/COpenAPIDocument/openapi.json"), encoding: .utf8)
        #expect(source.contains(OpenAPIDocument.versionPlaceholder))
        let expected = source.replacing(OpenAPIDocument.versionPlaceholder, with: "\"\(MastheadVersion.current)\"")
        #expect(response?.status == 200)
        let isTheSource = response?.body == expected
        #expect(isTheSource, "the served document is not openapi.json with the version filled in")
    }

    /// Copies an executable through a descriptor closed on exec: a browser or server another test
    /// spawns meanwhile must not inherit the copy open for writing, or executing the copy fails
    /// with "Text file busy" (ETXTBSY) while that child lives.
    static func copyExecutable(_ source: String, to destination: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination]) }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination]) }
                offset += written
            }
        }
    }
}
