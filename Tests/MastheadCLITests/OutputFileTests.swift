import Foundation
import Glibc
@testable import MastheadCLI
import Testing

/// Where a command's `--output` goes: only a regular file is replaced (atomically, through a
/// temporary file nobody can plant or predict); links, FIFOs and devices are refused untouched,
/// and `-` is standard output.
struct OutputFileTests {
    /// The kind of file at `path` (not following a link), as `S_IFMT` bits; nil when nothing is there.
    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    static func auditArguments(output: String) -> [String] {
        ["audit", "--catalog", "Catalog/the-monthly", "--receipts", "Catalog/the-monthly/receipts/table-6-1.json", "--output", output]
    }

    /// A FIFO, a link to a device and a dangling link at the output path are refused (exit 73,
    /// naming the path and what it is) and left as they were; nothing else is created beside them.
    @Test func nonRegularOutputs_areRefused_andLeftAlone() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let deviceLink = folder.appendingPathComponent("null-link").path
        try FileManager.default.createSymbolicLink(atPath: deviceLink, withDestinationPath: "/dev/null")
        let dangling = folder.appendingPathComponent("dangling").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.appendingPathComponent("planted").path)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        for (path, what, kind) in [(fifo, "a FIFO", S_IFIFO), (deviceLink, "a symbolic link", S_IFLNK), (dangling, "a symbolic link", S_IFLNK)] {
            for command in [Self.auditArguments(output: path), ["timeline", "--catalog", "Catalog/the-monthly",
                "--receipt", "Catalog/the-monthly/receipts/table-6-1.json", "--output", path]] {
                let run = try Tool.run(command)
                #expect(run.status == 73, "\(command[0]) \(path)")
                #expect(run.errors.contains("cannot write \(path): \(what), not a regular file"), "\(run.errors)")
                #expect(run.errors.contains("use - for standard output"))
                #expect(Self.kind(path) == kind, "\(path) was replaced")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
        #expect(Self.kind(folder.appendingPathComponent("planted").path) == nil)
    }

    /// `--output -` writes to standard output.
    @Test func dash_writesToStandardOutput() throws {
        let run = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json",
                                "--at", "2020-07-02T00:00:00Z", "--output", "-"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("<?xml"))
    }

    /// The temporary file is not `OUT.partial-PID`: a link planted under that name (to a file the
    /// attacker wants overwritten) is neither followed nor removed, and the output still lands.
    @Test func temporaryFile_isNotThePredictableName_andNeverFollowsALink() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jsonl").path
        let victim = folder.appendingPathComponent("victim").path
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = "\(output).partial-\(getpid())"
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        let file = try OutputFile(path: output)
        let temporary = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first {
            $0.hasPrefix("out.jsonl.partial-") && folder.appendingPathComponent($0).path != planted
        })
        // Random, and readable by its owner only while it is written.
        #expect(temporary.count == "out.jsonl.partial-".count + 16)
        var info = stat()
        #expect(lstat(folder.appendingPathComponent(temporary).path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try file.write("results\n")
        try file.finish()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "results\n")
        #expect(Self.kind(planted) == S_IFLNK)
    }

    /// A replaced file keeps its permissions (an audit kept private stays private); a new one is
    /// 0644 less the umask.
    @Test func replacedFile_keepsItsMode_newFileFollowsTheUmask() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let existing = folder.appendingPathComponent("private.jsonl").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(chmod(existing, 0o640) == 0)
        let replacing = try OutputFile(path: existing)
        try replacing.write("new\n")
        try replacing.finish()
        var info = stat()
        #expect(stat(existing, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "new\n")
        let mask = umask(0o022)
        umask(mask)
        let fresh = folder.appendingPathComponent("fresh.jsonl").path
        let creating = try OutputFile(path: fresh)
        try creating.finish()
        #expect(stat(fresh, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o644 & ~mask)
    }
}
