import MastheadJSON

/// A compact JWS (`header.payload.signature`, RFC 7515 §7.1) taken apart and checked for shape
/// as Apple's signed data must have it, before any cryptography.
///
/// Checks, in order: three base64url parts; a header that is a JSON object without `crit` (no
/// extension is understood, so none may be required, RFC 7515 §4.1.11); a payload that is a JSON
/// object whose `signedDate`, when present, is an integer; `alg` exactly `ES256`; `x5c` an
/// array of exactly three strings, the first two base64 (the third, the chain's own root, is never
/// used: trust comes from the configured roots only, as in Apple's library).
struct CompactJWS {
    let header: JWSHeader
    let payload: [UInt8]
    /// The payload's `signedDate`, milliseconds since the Unix epoch.
    let signedDate: Int64?
    let signature: [UInt8]
    /// The DER bytes of `x5c[0]` and `x5c[1]`.
    let leaf: [UInt8]
    let intermediate: [UInt8]
    /// The length of `header.payload`, the signed bytes at the start of the token.
    let signingInputLength: Int

    init(parsing token: [UInt8]) throws(SignatureError) {
        var dots: [Int] = []
        dots.reserveCapacity(2)
        var index = 0
        while let dot = token[index...].firstIndex(of: UInt8(ascii: ".")) {
            dots.append(dot)
            index = dot + 1
        }
        guard dots.count == 2 else {
            throw .malformedToken(part: .token, reason: "has \(dots.count + 1) parts; a compact JWS has 3 (header.payload.signature)")
        }
        let headerBytes = try CompactJWS.decode(token[..<dots[0]], .header)
        payload = try CompactJWS.decode(token[(dots[0] + 1)..<dots[1]], .payload)
        signature = try CompactJWS.decode(token[(dots[1] + 1)...], .signature)
        signingInputLength = dots[1]

        let headerJSON = try CompactJWS.object(headerBytes, .header)
        let payloadJSON = try CompactJWS.object(payload, .payload)
        if let signedDate = payloadJSON.member("signedDate") {
            guard let milliseconds = signedDate.int64 else {
                throw .malformedToken(part: .payload, reason: "signedDate is not an integer number of milliseconds")
            }
            self.signedDate = milliseconds
        } else {
            signedDate = nil
        }

        guard headerJSON.member("crit") == nil else {
            throw .malformedToken(part: .header, reason: "has crit: it requires extensions this verifier does not implement")
        }
        guard let algorithm = headerJSON.member("alg") else { throw .malformedToken(part: .header, reason: "has no alg") }
        guard let algorithmName = algorithm.string else { throw .malformedToken(part: .header, reason: "alg is not a string") }
        guard algorithmName == "ES256" else { throw .unsupportedAlgorithm(algorithmName) }
        let type = try CompactJWS.optionalString(headerJSON, "typ")
        let keyId = try CompactJWS.optionalString(headerJSON, "kid")
        guard let x5c = headerJSON.member("x5c") else {
            throw .malformedToken(part: .header, reason: "has no x5c certificate chain")
        }
        guard x5c.kind == .array else { throw .malformedToken(part: .header, reason: "x5c is not an array") }
        var chain: [String] = []
        for (index, element) in x5c.elements.enumerated() {
            guard let text = element.string else { throw .malformedToken(part: .header, reason: "x5c[\(index)] is not a string") }
            chain.append(text)
        }
        guard chain.count == 3 else { throw .wrongChainLength(count: chain.count) }
        leaf = try CompactJWS.certificateBytes(chain[0], index: 0)
        intermediate = try CompactJWS.certificateBytes(chain[1], index: 1)
        header = JWSHeader(algorithm: algorithmName, type: type, keyId: keyId, certificateChain: chain)
    }

    /// The bytes of one base64url part; only the signature may be empty (it is then refused for
    /// its length, after the header's `alg`, so that an unsigned `alg: none` token is named as such).
    private static func decode(_ text: ArraySlice<UInt8>, _ part: JWSPart) throws(SignatureError) -> [UInt8] {
        guard !text.isEmpty || part == .signature else { throw .malformedToken(part: part, reason: "is empty") }
        guard let bytes = Base64.decode(text, .url) else {
            throw .malformedToken(part: part, reason: "is not base64url: \(Base64.problem(in: text, .url))")
        }
        return bytes
    }

    /// The top-level object of a part's JSON text.
    private static func object(_ bytes: [UInt8], _ part: JWSPart) throws(SignatureError) -> JSONValue {
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            throw .malformedToken(part: part, reason: "is not JSON: \(error)")
        }
        guard document.root.kind == .object else { throw .malformedToken(part: part, reason: "is not a JSON object") }
        return document.root
    }

    /// A header parameter that must be a string when present.
    private static func optionalString(_ header: JSONValue, _ name: StaticString) throws(SignatureError) -> String? {
        guard let value = header.member(name) else { return nil }
        guard let text = value.string else { throw .malformedToken(part: .header, reason: "\(name) is not a string") }
        return text
    }

    /// The DER bytes of an `x5c` entry.
    private static func certificateBytes(_ text: String, index: Int) throws(SignatureError) -> [UInt8] {
        let bytes = Array(text.utf8)
        guard let der = Base64.decode(bytes[...], .standard) else {
            throw .undecodableCertificate(index: index, reason: "not base64: \(Base64.problem(in: bytes[...], .standard))")
        }
        return der
    }
}
