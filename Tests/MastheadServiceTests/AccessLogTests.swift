import Foundation
import Glibc
import MastheadService
import Testing

/// The access log's file: a regular file only, opened without following a symbolic link or
/// waiting for a FIFO's reader.
struct AccessLogTests {
    /// A new empty folder.
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-access-log-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func symbolicLink_isRefused_andItsTargetIsNotWritten() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/target"
        let link = folder + "/access.log"
        try Data().write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: ConfigurationError.invalid("accessLog: cannot open \(link): it is a symbolic link")) {
            try AccessLog(destination: link).close()
        }
    }

    @Test func fifoWithAReader_isRefused_asNotARegularFile() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/access.log"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        #expect(throws: ConfigurationError.invalid("accessLog: \(fifo) is not a regular file (use - for standard error)")) {
            try AccessLog(destination: fifo).close()
        }
    }

    /// Opening a FIFO for writing waits for a reader: the log is refused at once instead.
    @Test func fifoWithoutAReader_isRefused_withoutWaiting() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/access.log"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConfigurationError.invalid("accessLog: cannot open \(fifo): it is not a regular file")) {
            try AccessLog(destination: fifo).close()
        }
    }

    @Test func folder_isRefused() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ConfigurationError.self) { try AccessLog(destination: folder).close() }
    }
}
