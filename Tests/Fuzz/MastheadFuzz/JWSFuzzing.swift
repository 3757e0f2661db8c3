import Foundation
import MastheadCrypto

/// The signed-data target: compact JWS verification with trusted test roots, by a verifier that
/// caches chains and one that does not, which must agree on every input.
enum JWSFuzzing {
    /// The test chain's root and the root of Apple's test vectors, so that seeds verify.
    static let roots: [Certificate] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return ["Tests/Fixtures/test-chain/root.der", "Tests/Fixtures/appstore-v2/certs/root-ca.der"].map { path in
            let file = root.appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: file.path) else { fatalError("cannot read \(file.path)") }
            do { return try Certificate(der: [UInt8](data)) } catch { fatalError("\(file.path): \(error)") }
        }
    }()

    static let caching: JWSVerifier = verifier(cacheCapacity: 4)
    static let uncached: JWSVerifier = verifier(cacheCapacity: 0)

    static func verifier(cacheCapacity: Int) -> JWSVerifier {
        do { return try JWSVerifier(rootCertificates: roots, cacheCapacity: cacheCapacity) } catch { fatalError("\(error)") }
    }

    /// 2023-06-01T00:00:00Z: "now" for tokens without a signedDate, inside every test chain's validity.
    static let now: Int64 = 1_685_577_600_000

    static func run(_ bytes: [UInt8]) {
        let cached = outcome(caching, bytes)
        precondition(cached == outcome(uncached, bytes), "the caching verifier and the uncached one disagree")
    }

    /// What a verifier answers: the verified payload and instant, or the error's message.
    static func outcome(_ verifier: JWSVerifier, _ bytes: [UInt8]) -> String {
        do {
            let verified = try verifier.verify(utf8: bytes, now: { now })
            precondition(verified.header.algorithm == "ES256" && verified.header.certificateChain.count == 3, "a verified header breaks the rules")
            precondition(verified.judgedAt == verified.signedDate ?? now, "judged at neither signedDate nor now")
            return "verified \(verified.payload) at \(verified.judgedAt)"
        } catch {
            return error.description
        }
    }
}
