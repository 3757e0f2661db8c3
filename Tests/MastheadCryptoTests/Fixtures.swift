import Foundation
import MastheadCrypto

/// Files the tests read: Apple's signed-data vectors (`Tests/Fixtures/appstore-v2`) and the
/// project's own test chain (`Tests/Fixtures/test-chain`).
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let appStoreV2 = root.appendingPathComponent("Tests/Fixtures/appstore-v2")
    static let testChain = root.appendingPathComponent("Tests/Fixtures/test-chain")

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// A certificate of `appstore-v2/certs`, such as `leaf-cert.der`.
    static func appleCertificate(_ name: String) throws -> Certificate {
        try Certificate(der: bytes(appStoreV2.appendingPathComponent("certs/" + name)))
    }

    /// A token of `appstore-v2/mock_signed_data`, such as `testNotification`.
    static func appleToken(_ name: String) throws -> String {
        String(decoding: try bytes(appStoreV2.appendingPathComponent("mock_signed_data/" + name)), as: UTF8.self)
    }

    /// A certificate of the test chain, such as `leaf.der`.
    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(der: bytes(testChain.appendingPathComponent(name)))
    }

    /// A file of the test chain as bytes, such as `root.pem`.
    static func testChainBytes(_ name: String) throws -> [UInt8] { try bytes(testChain.appendingPathComponent(name)) }

    /// A file of the test chain as text, such as `leaf-key.pem`.
    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(testChain.appendingPathComponent(name)), as: UTF8.self)
    }

    /// The test chain's signing key (PKCS#8).
    static func leafKey() throws -> SigningKey { try SigningKey(pem: text("leaf-key.pem")) }

    /// 2025-11-01T02:09:35Z: the instant Apple's library tests its chains at.
    static let appleEffectiveDate: Int64 = 1_761_962_975_000
    /// 2042-04-12T13:40:46Z: after Apple's test certificates expire.
    static let appleExpiredDate: Int64 = 2_280_946_846_000
    /// 2020-07-02T00:00:00Z: inside the test chain's validity.
    static let signedDate2020: Int64 = 1_593_648_000_000
}
