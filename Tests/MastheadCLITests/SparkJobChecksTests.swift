import Foundation
import Testing

/// The Spark audit job's own checks (partitioning by the user id's bytes, byte-order marks,
/// summaries), which need Python but not Spark: `python3 -m unittest` on Tests/MastheadSpark.
struct SparkJobChecksTests {
    /// python3 on the usual paths, or nil.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/python3" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    @Test(.enabled(if: python != nil, "python3 is not installed: the Spark job's checks need it"))
    func sparkJob_unitChecks_pass() throws {
        let outcome = try Tool.runProgram(try #require(Self.python), ["-m", "unittest", "discover", "-s", "Tests/MastheadSpark"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.contains("OK"), "\(outcome.errors)")
    }
}
