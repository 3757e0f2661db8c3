import Foundation

/// The committed inputs of the fuzz targets: seed corpora and the crashes found so far.
package enum FuzzInputs {
    /// `Tests/Fuzz`, found from this source file.
    package static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path

    /// The seed corpus of a target: `Tests/Fuzz/Corpus/TARGET`.
    package static func corpus(_ target: FuzzTarget) -> [String] {
        files(at: folder + "/Corpus/" + target.rawValue)
    }

    /// The inputs that once crashed a target: `Tests/Fuzz/Crashes/TARGET`.
    package static func crashes(_ target: FuzzTarget) -> [String] {
        files(at: folder + "/Crashes/" + target.rawValue)
    }

    /// The file at `path`, or the files directly inside the folder at `path`, sorted.
    package static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
    }
}
