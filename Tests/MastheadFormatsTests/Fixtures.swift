import Foundation

/// Files the tests read: the App Store payloads in `Tests/Fixtures/appstore` and the shipped example catalog.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let appStore = root.appendingPathComponent("Tests/Fixtures/appstore")
    static let appStoreV2 = root.appendingPathComponent("Tests/Fixtures/appstore-v2")
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

    /// A decoded payload of `Tests/Fixtures/appstore-v2/models`, such as `signedTransaction.json`.
    static func model(_ name: String) throws -> [UInt8] { try bytes(appStoreV2.appendingPathComponent("models").appendingPathComponent(name)) }

    /// The payload of a signed token of `Tests/Fixtures/appstore-v2/mock_signed_data`: its middle
    /// part, base64url-decoded (its signature is not checked here).
    static func mockPayload(_ name: String) throws -> [UInt8] {
        let token = String(decoding: try bytes(appStoreV2.appendingPathComponent("mock_signed_data").appendingPathComponent(name)), as: UTF8.self)
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw CocoaError(.fileReadCorruptFile) }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { throw CocoaError(.fileReadCorruptFile) }
        return [UInt8](data)
    }
}
