import MastheadCrypto
import MastheadJSON

/// A compact JWT (`header.payload.signature`) taken apart and checked for shape as an RS256 token
/// of Google's must have it, before any cryptography: three base64url parts (strict: one
/// spelling per byte string), header and payload JSON objects (strict JSON: a repeated member
/// is refused), no `crit` in the header, `alg` exactly `RS256`, a string `kid`.
struct SignedJWT {
    /// The `kid` of the header.
    let keyId: String
    /// The payload, parsed: a JSON object.
    let payload: JSONValue
    let signature: [UInt8]
    /// `header.payload`: the signed bytes.
    let signingInput: [UInt8]

    /// Takes `token` apart.
    init(parsing token: [UInt8]) throws(PushRefusal) {
        let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed(part: "token", reason: "has \(parts.count) parts; a JWT has 3 (header.payload.signature)") }
        let header = try Self.object(parts[0], "header")
        let payload = try Self.object(parts[1], "payload")
        guard header.member("crit") == nil else { throw .malformed(part: "header", reason: "has crit: it requires extensions this verifier does not implement") }
        guard let algorithm = header.member("alg") else { throw .malformed(part: "header", reason: "has no alg") }
        guard let algorithmBytes = Self.bytes(algorithm) else { throw .malformed(part: "header", reason: "alg is not a string") }
        guard algorithmBytes == Array("RS256".utf8) else { throw .unsupportedAlgorithm(PeerText.shown(String(decoding: algorithmBytes, as: UTF8.self))) }
        guard let keyId = header.member("kid") else { throw .malformed(part: "header", reason: "has no kid") }
        guard let keyIdText = keyId.string else { throw .malformed(part: "header", reason: "kid is not a string") }
        guard !parts[2].isEmpty else { throw .malformed(part: "signature", reason: "is empty") }
        let signature = try Self.decode(parts[2], "signature")
        self.keyId = keyIdText
        self.payload = payload
        self.signature = signature
        signingInput = Array(token[..<parts[1].endIndex])
    }

    /// The JSON object a base64url part holds.
    private static func object(_ text: ArraySlice<UInt8>, _ part: String) throws(PushRefusal) -> JSONValue {
        guard !text.isEmpty else { throw .malformed(part: part, reason: "is empty") }
        let bytes = try decode(text, part)
        let document: JSONDocument
        do { document = try JSONDocument(parsing: bytes, maxDepth: 16) } catch {
            // The parser's message may quote a member name of the (unauthenticated) token.
            throw .malformed(part: part, reason: "is not JSON: " + PeerText.shown("\(error)", limit: 200))
        }
        guard document.root.kind == .object else { throw .malformed(part: part, reason: "is not a JSON object") }
        return document.root
    }

    /// The bytes of a base64url part.
    private static func decode(_ text: ArraySlice<UInt8>, _ part: String) throws(PushRefusal) -> [UInt8] {
        do { return try Base64.decode(String(decoding: text, as: UTF8.self), .url) } catch { throw .malformed(part: part, reason: "is not base64url (\(error))") }
    }

    /// The UTF-8 bytes of a JSON string, exactly as unescaped; nil for another kind of value.
    static func bytes(_ value: JSONValue) -> [UInt8]? {
        value.withStringBytes { Array($0) }
    }
}
