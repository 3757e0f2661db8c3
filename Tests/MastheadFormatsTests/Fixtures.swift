import Foundation

/// Files the tests read: the App Store payloads in `Tests/Fixtures/appstore` and the shipped example catalog.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let appStore = root.appendingPathComponent("Tests/Fixtures/appstore")
    static let catalogFolder = root.appendingPathComponent("Catalog/the-monthly")

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// A file of the shipped example catalog folder, such as `receipts/table-6-1.json`.
    static func example(_ relative: String) throws -> [UInt8] { try bytes(catalogFolder.appendingPathComponent(relative)) }

    static func appStoreFiles(_ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: appStore.appendingPathComponent(folder).path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func appStoreBytes(_ folder: String, _ name: String) throws -> [UInt8] {
        try bytes(appStore.appendingPathComponent(folder).appendingPathComponent(name))
    }
}
