#if FUZZING
import Glibc

/// The target chosen by `MASTHEAD_FUZZ_TARGET`, read once before the first input.
nonisolated(unsafe) private var selected: FuzzTarget?

/// libFuzzer's set-up hook: reads which target to run.
@_cdecl("LLVMFuzzerInitialize")
func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = getenv("MASTHEAD_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        let message = Array("MastheadFuzz: set MASTHEAD_FUZZ_TARGET to one of: \(known) (not '\(name)')\n".utf8)
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(64)
    }
    selected = target
    return 0
}

/// libFuzzer's entry point: one input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected?.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}
#else
import Foundation

/// Built normally, the fuzz targets replay files: `MastheadFuzz TARGET FILE_OR_FOLDER...`, so a
/// crash libFuzzer found can be rerun with the ordinary toolchain's diagnostics.
@main
struct FuzzReplay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: MastheadFuzz \(known) FILE_OR_FOLDER...\n".utf8))
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in FuzzInputs.files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("MastheadFuzz: cannot read \(file)\n".utf8))
                    exit(66)
                }
                print(file)
                target.run([UInt8](data))
                count += 1
            }
        }
        print("\(count) inputs replayed through \(target.rawValue)")
    }
}
#endif
