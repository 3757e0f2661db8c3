public import MastheadAppStore
import Masthead
public import MastheadCrypto
import MastheadJSON

/// Google's OIDC signing keys by `kid` (RSA, RS256), parsed from a JWKS document (RFC 7517 §5),
/// such as `https://www.googleapis.com/oauth2/v3/certs` serves.
///
/// A key is used when its `kty` is `RSA`, its `alg` is `RS256` or absent, its `use` is `sig` or
/// absent, and it has a `kid` and base64url `n` and `e` making a key of 2048 to 8192 bits; any
/// other key is skipped (Google may publish keys of other kinds). A document that is not a JSON
/// object with a `keys` array, whose usable keys repeat a `kid`, or that holds no usable key is
/// refused. Key ids are compared as their exact bytes.
public struct GoogleSigningKeys: Sendable {
    /// The keys by the UTF-8 bytes of their `kid`.
    let keys: [[UInt8]: RSAPublicKey]
    /// Whether the keys were fetched (``fetch(from:allowHTTP:transport:)``) rather than read from a
    /// configured file: only a file's keys are trusted for good.
    public private(set) var wasFetched = false
    /// The `max-age` of the fetch's `Cache-Control`, in seconds (taken between 60 and 86400);
    /// nil for keys read from a file, or when Google's answer gave none.
    public private(set) var maxAgeSeconds: Int64?

    /// How long fetched keys are trusted after their fetch started: twice ``maxAgeSeconds``, or a
    /// day without it.
    public var trustSeconds: Int64 { maxAgeSeconds.map { 2 * $0 } ?? 86_400 }

    /// The largest JWKS document read (Google's is about 2 KB).
    public static let maxDocumentBytes = 256 << 10

    /// Parses a JWKS document.
    /// - Throws: ``GooglePlayError/invalidJWKS(reason:)`` naming the JSON path at fault.
    public init(jwks: [UInt8]) throws(GooglePlayError) {
        guard jwks.count <= Self.maxDocumentBytes else { throw .invalidJWKS(reason: "\(jwks.count) bytes; at most \(Self.maxDocumentBytes) are read") }
        let document: JSONDocument
        do { document = try JSONDocument(parsing: jwks, maxDepth: 8) } catch { throw .invalidJWKS(reason: PeerText.shown("\(error)", limit: 200)) }
        guard document.root.kind == .object else { throw .invalidJWKS(reason: "$ is not a JSON object") }
        guard let list = document.root.member("keys"), list.kind == .array else { throw .invalidJWKS(reason: "$.keys is missing or not an array") }
        var keys: [[UInt8]: RSAPublicKey] = [:]
        var skipped: [String] = []
        for (index, entry) in list.elements.enumerated() {
            let path = JSONPath.element("$.keys", index)
            switch try Self.key(entry, path: path) {
            case .usable(let id, let key):
                guard keys.updateValue(key, forKey: Array(id.utf8)) == nil else { throw .invalidJWKS(reason: "\(path).kid \"\(PeerText.shown(id))\" is used by an earlier key") }
            case .skipped(let why): skipped.append("\(path): \(why)")
            }
        }
        guard !keys.isEmpty else {
            throw .invalidJWKS(reason: "no usable RSA RS256 signing key" + (skipped.isEmpty ? "" : " (\(skipped.prefix(4).joined(separator: "; ")))"))
        }
        self.keys = keys
    }

    /// The key whose `kid` is exactly `id`.
    public func key(id: String) -> RSAPublicKey? { keys[Array(id.utf8)] }

    /// The key ids, sorted by their bytes.
    public var keyIds: [String] { keys.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) } }

    /// Fetches Google's current keys from `url` (`googlePlayJWKSURL`) with `transport`: one GET,
    /// answered 200 with a JWKS; its `Cache-Control: max-age` becomes ``maxAgeSeconds``.
    /// - Throws: ``GooglePlayError/invalidBaseURL(setting:url:)`` for a URL that is not https (nor
    ///   http while `allowHTTP`), ``GooglePlayError/signingKeysUnavailable(url:reason:)`` when the
    ///   exchange fails or the answer is not a usable JWKS.
    public static func fetch(from url: String, allowHTTP: Bool, transport: HTTPSTransport) throws(GooglePlayError) -> GoogleSigningKeys {
        try GooglePlayClient.checkURL(url, setting: "googlePlayJWKSURL", allowHTTP: allowHTTP)
        let request = HTTPSTransport.Request(method: "GET", url: url, headers: [("Accept", "application/json")])
        switch transport.send(request) {
        case .failure(let failure): throw .signingKeysUnavailable(url: url, reason: failure.description)
        case .success(let response):
            guard response.status == 200 else { throw .signingKeysUnavailable(url: url, reason: "HTTP \(response.status)") }
            var keys: GoogleSigningKeys
            do { keys = try GoogleSigningKeys(jwks: response.body) } catch { throw .signingKeysUnavailable(url: url, reason: error.description) }
            keys.wasFetched = true
            keys.maxAgeSeconds = response.headers["cache-control"].flatMap(maxAge)
            return keys
        }
    }

    /// The `max-age` directive of a `Cache-Control` value, in seconds, taken between 60 and 86400.
    static func maxAge(_ cacheControl: String) -> Int64? {
        let name = Array("max-age=".utf8)
        for directive in cacheControl.utf8.split(separator: UInt8(ascii: ",")) {
            let trimmed = directive.drop { $0 == 0x20 || $0 == 0x09 }
            guard trimmed.count > name.count, trimmed.prefix(name.count).map({ $0 | 0x20 }) == name else { continue }
            let digits = trimmed.dropFirst(name.count).prefix { $0 != 0x20 && $0 != 0x09 }
            guard (1...10).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let seconds = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
            return min(max(seconds, 60), 86_400)
        }
        return nil
    }

    /// What one entry of `keys` gives.
    private enum Entry {
        case usable(id: String, key: RSAPublicKey)
        case skipped(String)
    }

    /// Reads one entry: an RSA signing key for RS256, or why it is skipped. An entry that claims
    /// to be such a key but is malformed is refused rather than skipped.
    private static func key(_ entry: JSONValue, path: String) throws(GooglePlayError) -> Entry {
        guard entry.kind == .object else { throw .invalidJWKS(reason: "\(path) is not a JSON object") }
        guard let kty = entry.member("kty")?.string else { throw .invalidJWKS(reason: "\(path).kty is missing or not a string") }
        guard kty.sameBytes(as: "RSA") else { return .skipped("kty \(PeerText.shown(kty))") }
        if let alg = entry.member("alg") {
            guard let name = alg.string else { throw .invalidJWKS(reason: "\(path).alg is not a string") }
            guard name.sameBytes(as: "RS256") else { return .skipped("alg \(PeerText.shown(name))") }
        }
        if let use = entry.member("use") {
            guard let name = use.string else { throw .invalidJWKS(reason: "\(path).use is not a string") }
            guard name.sameBytes(as: "sig") else { return .skipped("use \(PeerText.shown(name))") }
        }
        guard let id = entry.member("kid")?.string else { throw .invalidJWKS(reason: "\(path).kid is missing or not a string") }
        guard !id.isEmpty else { throw .invalidJWKS(reason: "\(path).kid is empty") }
        let modulus = try bytes(entry, "n", path), exponent = try bytes(entry, "e", path)
        do {
            return .usable(id: id, key: try RSAPublicKey(modulus: modulus, exponent: exponent))
        } catch {
            throw .invalidJWKS(reason: "\(path) (kid \"\(PeerText.shown(id))\"): \(error)")
        }
    }

    /// A base64url member's bytes.
    private static func bytes(_ entry: JSONValue, _ name: StaticString, _ path: String) throws(GooglePlayError) -> [UInt8] {
        guard let text = entry.member(name)?.string else { throw .invalidJWKS(reason: "\(path).\(name) is missing or not a string") }
        do { return try Base64.decode(text, .url) } catch { throw .invalidJWKS(reason: "\(path).\(name): \(error)") }
    }
}
