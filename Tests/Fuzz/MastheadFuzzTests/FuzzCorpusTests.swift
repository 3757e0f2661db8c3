import Foundation
import MastheadFuzz
import Testing

/// The fuzz targets over their committed inputs: every seed, and every input that once crashed
/// one (a crash stops the test run).
struct FuzzCorpusTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: FuzzTarget.allCases)
    func target_survivesItsSeedCorpus(_ target: FuzzTarget) throws {
        let files = FuzzInputs.corpus(target)
        #expect(!files.isEmpty, "no seeds in Tests/Fuzz/Corpus/\(target.rawValue)")
        for file in files { target.run(try Self.bytes(file)) }
    }

    /// Each crash file as `TARGET/NAME`.
    static let crashes: [String] = FuzzTarget.allCases.flatMap { target in
        FuzzInputs.crashes(target).map { target.rawValue + "/" + ($0 as NSString).lastPathComponent }
    }

    @Test(arguments: crashes)
    func target_survivesTheInputsThatCrashedIt(_ crash: String) throws {
        let parts = crash.split(separator: "/", maxSplits: 1).map(String.init)
        let target = try #require(FuzzTarget(rawValue: parts[0]))
        target.run(try Self.bytes(FuzzInputs.folder + "/Crashes/" + crash))
    }
}
