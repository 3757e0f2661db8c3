public import Foundation
public import MastheadCrypto

/// The project's own test certificate chain (`Tests/Fixtures/test-chain`): a root, an intermediate
/// and a leaf carrying Apple's OIDs, and the leaf's key, for signing test data as Apple would.
public enum TestChain {
    /// The folder holding the chain's files.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/test-chain")

    /// A certificate of the chain, such as `root.der`.
    public static func certificate(_ name: String) throws -> Certificate {
        try Certificate(der: [UInt8](Data(contentsOf: directory.appendingPathComponent(name))))
    }

    /// The root to configure as the trust anchor for data the test chain signs.
    public static func root() throws -> Certificate { try certificate("root.der") }

    /// A signer with the leaf's key and the chain leaf, intermediate, root in its `x5c`.
    public static func signer() throws -> JWSSigner {
        let key = try SigningKey(pem: String(contentsOf: directory.appendingPathComponent("leaf-key.pem"), encoding: .utf8))
        return try JWSSigner(key: key, certificateChain: [certificate("leaf.der"), certificate("intermediate.der"), root()])
    }

    /// `json`, signed by the test chain as a compact JWS.
    public static func sign(_ json: String) throws -> String { try signer().sign(Array(json.utf8)) }

    /// Each of `jsons`, signed by the test chain with one signer: many tokens at once.
    public static func sign(each jsons: [String]) throws -> [String] {
        let signer = try signer()
        return try jsons.map { try signer.sign(Array($0.utf8)) }
    }
}
