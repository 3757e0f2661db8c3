import Foundation
import Testing
import MastheadTestSupport

/// The pictures render: `rsvg-convert` (librsvg, when installed) turns the timeline and the
/// report's chart into PNG images of the size the SVG declares.
struct PictureRenderingTests {
    static let renderer: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
        .split(separator: ":").map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The width and height in a PNG's header.
    static func size(ofPNG data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        func word(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    /// Renders `svg` to PNG and checks its size against the SVG's.
    static func render(_ svg: String, name: String, in folder: URL) throws {
        let renderer = try #require(Self.renderer)
        let input = folder.appendingPathComponent("\(name).svg")
        let output = folder.appendingPathComponent("\(name).png")
        try Data(svg.utf8).write(to: input)
        let run = try Tool.runProgram(renderer, [input.path, "-o", output.path])
        #expect(run.status == 0, "\(run.errors)")
        let elements = try SVGElements.read(svg)
        let size = try #require(Self.size(ofPNG: try Data(contentsOf: output)))
        #expect(Double(size.width) == elements.first?.number("width")?.rounded(.up), "\(name)")
        #expect(Double(size.height) == elements.first?.number("height")?.rounded(.up), "\(name)")
    }

    @Test(.enabled(if: renderer != nil, "rsvg-convert is not installed: the pictures are not rendered"))
    func timelineAndReportChart_renderToPNG() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.render(try TimelineCommandTests.svg(["table-6-1"], at: "2020-07-02T00:00:00Z", extra: ["--user", "alice"]), name: "timeline", in: folder)
        try Self.render(try GrantTimelineTests.bridgedPicture(), name: "timeline-grant", in: folder)
        let (receipts, grants) = try AuditOutputTests.inputs(in: folder)
        let report = folder.appendingPathComponent("report.html")
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--grants", grants.path, "--at", "2020-07-02T00:00:00Z",
            "--report", report.path, "--output", folder.appendingPathComponent("out.jsonl").path,
        ])
        #expect(run.status == 0)
        let html = try String(contentsOf: report, encoding: .utf8)
        let start = try #require(html.range(of: "<svg"))
        let end = try #require(html.range(of: "</svg>"))
        try Self.render(String(html[start.lowerBound..<end.upperBound]), name: "chart", in: folder)
    }
}
