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
        try FileManager.default.copyItem(at: Tool.binary, to: binary)
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
}
