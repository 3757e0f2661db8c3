import Glibc
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
    /// The header part, decoded and checked; shared by the tokens that carry the same header.
    let header: Header
    let payload: [UInt8]
    /// The payload, parsed: a JSON object.
    let payloadObject: JSONValue
    /// The payload's `signedDate`, milliseconds since the Unix epoch.
    let signedDate: Int64?
    let signature: [UInt8]
    /// The length of `header.payload`, the signed bytes at the start of the token.
    let signingInputLength: Int

    /// A token's first part, decoded and checked: what every token carrying the same bytes there
    /// has in common.
    final class Header: Sendable {
        /// The part as the token writes it (base64url).
        let text: [UInt8]
        let parameters: JWSHeader
        /// The chain's leaf and intermediate (the DER bytes of `x5c[0]` and `x5c[1]`).
        let chain: ChainCache.Key
        /// SHA-256 through the whole 64-byte blocks of `text`, the start of the signed bytes.
        let digestPrefix: SHA256Prefix

        /// Checks the header's JSON object, found in a token as `text`.
        init(_ json: JSONValue, text: UnsafeBufferPointer<UInt8>) throws(SignatureError) {
            guard json.member("crit") == nil else {
                throw .malformedToken(part: .header, reason: "has crit: it requires extensions this verifier does not implement")
            }
            guard let algorithm = json.member("alg") else { throw .malformedToken(part: .header, reason: "has no alg") }
            guard let algorithmName = algorithm.string else { throw .malformedToken(part: .header, reason: "alg is not a string") }
            guard algorithmName == "ES256" else { throw .unsupportedAlgorithm(algorithmName) }
            let type = try CompactJWS.optionalString(json, "typ")
            let keyId = try CompactJWS.optionalString(json, "kid")
            guard let x5c = json.member("x5c") else {
                throw .malformedToken(part: .header, reason: "has no x5c certificate chain")
            }
            guard x5c.kind == .array else { throw .malformedToken(part: .header, reason: "x5c is not an array") }
            var certificates: [String] = []
            for (index, element) in x5c.elements.enumerated() {
                guard let text = element.string else { throw .malformedToken(part: .header, reason: "x5c[\(index)] is not a string") }
                certificates.append(text)
            }
            guard certificates.count == 3 else { throw .wrongChainLength(count: certificates.count) }
            chain = ChainCache.Key(
                leaf: try CompactJWS.certificateBytes(certificates[0], index: 0),
                intermediate: try CompactJWS.certificateBytes(certificates[1], index: 1))
            parameters = JWSHeader(algorithm: algorithmName, type: type, keyId: keyId, certificateChain: certificates)
            self.text = Array(text)
            digestPrefix = try SHA256Prefix(self.text[...])
        }
    }

    /// Takes `token` apart; a header found in `headers` is not decoded again, a new one is added.
    init(parsing token: [UInt8], headers: HeaderCache? = nil) throws(SignatureError) {
        let parsed = token.withUnsafeBufferPointer { bytes in
            Result { () throws(SignatureError) in try CompactJWS(parsing: bytes, headers: headers) }
        }
        self = try parsed.get()
    }

    /// Takes the token in `token` apart, reading it in place (nothing of it is kept but copies).
    init(parsing token: UnsafeBufferPointer<UInt8>, headers: HeaderCache? = nil) throws(SignatureError) {
        let dots = CompactJWS.dots(in: token)
        guard dots.count == 2 else {
            throw .malformedToken(part: .token, reason: "has \(dots.count + 1) parts; a compact JWS has 3 (header.payload.signature)")
        }
        let headerText = UnsafeBufferPointer(rebasing: token[..<dots.first])
        // A header met before was decoded and checked then: the same bytes give the same result.
        let known = headers?.header(headerText)
        let headerBytes = known == nil ? try CompactJWS.decode(headerText, .header) : []
        payload = try CompactJWS.decode(UnsafeBufferPointer(rebasing: token[(dots.first + 1)..<dots.second]), .payload)
        signature = try CompactJWS.decode(UnsafeBufferPointer(rebasing: token[(dots.second + 1)...]), .signature)
        signingInputLength = dots.second

        let headerJSON = known == nil ? try CompactJWS.object(headerBytes, .header) : nil
        payloadObject = try CompactJWS.object(payload, .payload)
        if let signedDate = payloadObject.member("signedDate") {
            guard let milliseconds = signedDate.int64 else {
                throw .malformedToken(part: .payload, reason: "signedDate is not an integer number of milliseconds")
            }
            self.signedDate = milliseconds
        } else {
            signedDate = nil
        }
        if let known {
            header = known
        } else {
            header = try Header(headerJSON!, text: headerText)
            headers?.insert(header)
        }
    }

    /// How many dots `token` holds and the offsets of the first two (0 when absent), found with
    /// `memchr` (a token of three parts has exactly two).
    private static func dots(in token: UnsafeBufferPointer<UInt8>) -> (count: Int, first: Int, second: Int) {
        var dots = (count: 0, first: 0, second: 0)
        guard let start = token.baseAddress else { return dots }
        var index = 0
        while index < token.count, let found = memchr(start + index, Int32(UInt8(ascii: ".")), token.count - index) {
            let dot = UnsafeRawPointer(found) - UnsafeRawPointer(start)
            switch dots.count {
            case 0: dots.first = dot
            case 1: dots.second = dot
            default: break
            }
            dots.count += 1
            index = dot + 1
        }
        return dots
    }

    /// The SHA-256 digest of the signed bytes, `header.payload`, continuing from the header's digest prefix.
    func signingInputDigest(of token: UnsafeBufferPointer<UInt8>) throws(SignatureError) -> [UInt8] {
        let rest = UnsafeBufferPointer(rebasing: token[header.digestPrefix.length..<signingInputLength])
        return try header.digestPrefix.digest(continuingWith: UnsafeRawBufferPointer(rest))
    }

    /// The bytes of one base64url part; only the signature may be empty (it is then refused for
    /// its length, after the header's `alg`, so that an unsigned `alg: none` token is named as such).
    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ part: JWSPart) throws(SignatureError) -> [UInt8] {
        guard !text.isEmpty || part == .signature else { throw .malformedToken(part: part, reason: "is empty") }
        guard let bytes = Base64.decode(text, .url) else {
            throw .malformedToken(part: part, reason: "is not base64url: \(Base64.problem(in: ArraySlice(text), .url))")
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
    static func optionalString(_ header: JSONValue, _ name: StaticString) throws(SignatureError) -> String? {
        guard let value = header.member(name) else { return nil }
        guard let text = value.string else { throw .malformedToken(part: .header, reason: "\(name) is not a string") }
        return text
    }

    /// The DER bytes of an `x5c` entry.
    static func certificateBytes(_ text: String, index: Int) throws(SignatureError) -> [UInt8] {
        let bytes = Array(text.utf8)
        guard let der = Base64.decode(bytes[...], .standard) else {
            throw .undecodableCertificate(index: index, reason: "not base64: \(Base64.problem(in: bytes[...], .standard))")
        }
        return der
    }
}
