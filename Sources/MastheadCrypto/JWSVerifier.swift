public import MastheadJSON

/// Verifies Apple's signed data (compact JWS, ES256, `x5c` chain) as strictly as Apple's own
/// library does offline, with OpenSSL.
///
/// A token is accepted only if all hold, in this order:
/// 1. it is three base64url parts; the header and payload are JSON objects (``CompactJWS``'s checks);
/// 2. the header's `alg` is exactly `ES256` and its `x5c` holds exactly three certificates;
/// 3. `x5c[0]` (leaf) and `x5c[1]` (intermediate) chain to one of ``rootCertificates``, every
///    certificate valid at the payload's `signedDate` (or at the caller's "now" when it has none),
///    without CRLs or online checks; `x5c[2]` is never trusted nor used;
/// 4. the leaf carries ``leafOID`` and the intermediate ``intermediateOID``;
/// 5. the leaf's key is P-256 and the 64-byte r‖s signature verifies over `header.payload`.
///
/// Steps 3–4 are remembered per leaf and intermediate (a bounded cache, Apple's library keeps one
/// too) for instants inside the chain's validity window; step 5 runs for every token. How a
/// header reads (step 2, its certificates' bytes, and the SHA-256 of its whole 64-byte blocks, the
/// start of the signed bytes) is remembered per header text: the many tokens one signer makes
/// share it. The verifier is a value shared by any number of threads, which verify concurrently.
public struct JWSVerifier: Sendable {
    /// Apple's receipt-signing extension, which the leaf must carry.
    public static let appleLeafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's WWDR intermediate extension, which the intermediate must carry.
    public static let appleIntermediateOID = "1.2.840.113635.100.6.2.1"
    /// How many verified chains are remembered by default (Apple's library keeps 32).
    public static let defaultCacheCapacity = 32

    /// The trust anchors.
    public var rootCertificates: [Certificate] { trust.roots }
    /// The extension the leaf must carry.
    public let leafOID: String
    /// The extension the intermediate must carry.
    public let intermediateOID: String
    let trust: TrustStore
    let cache: ChainCache
    let headers: HeaderCache

    /// A verifier trusting `rootCertificates`.
    /// - Parameters:
    ///   - rootCertificates: the trust anchors; by default Apple Root CA - G3.
    ///   - leafOID: the extension the leaf must carry.
    ///   - intermediateOID: the extension the intermediate must carry.
    ///   - cacheCapacity: how many verified chains, and how many headers, to remember (0: none).
    /// - Throws: ``SignatureError/openSSL(function:reason:)`` when OpenSSL cannot build the store.
    public init(
        rootCertificates: [Certificate] = [.appleRootCAG3], leafOID: String = JWSVerifier.appleLeafOID,
        intermediateOID: String = JWSVerifier.appleIntermediateOID, cacheCapacity: Int = JWSVerifier.defaultCacheCapacity
    ) throws(SignatureError) {
        trust = try TrustStore(roots: rootCertificates)
        self.leafOID = leafOID
        self.intermediateOID = intermediateOID
        cache = ChainCache(capacity: cacheCapacity)
        headers = HeaderCache(capacity: cacheCapacity)
    }

    /// Verifies a compact JWS.
    /// - Parameters:
    ///   - token: the compact serialization, without surrounding whitespace.
    ///   - now: the current instant in milliseconds since the Unix epoch, asked only when the
    ///     payload has no `signedDate`.
    /// - Returns: the header, the payload and its `signedDate`, and the instant the chain was judged at.
    /// - Throws: ``SignatureError`` naming the first check that failed.
    public func verify(_ token: String, now: () -> Int64) throws(SignatureError) -> VerifiedJWS {
        // Read in place: a token is kilobytes, most of them the header's chain.
        var token = token
        let verified = token.withUTF8 { bytes in Result { () throws(SignatureError) in try verify(bytes: bytes, now: now) } }
        return try verified.get()
    }

    /// Verifies a compact JWS given as UTF-8 bytes; see ``verify(_:now:)``.
    public func verify(utf8 token: [UInt8], now: () -> Int64) throws(SignatureError) -> VerifiedJWS {
        let verified = token.withUnsafeBufferPointer { bytes in Result { () throws(SignatureError) in try verify(bytes: bytes, now: now) } }
        return try verified.get()
    }

    /// Verifies the compact JWS whose UTF-8 bytes `token` points at, read in place (nothing of
    /// it is kept but copies); see ``verify(_:now:)``.
    package func verify(bytes token: UnsafeBufferPointer<UInt8>, now: () -> Int64) throws(SignatureError) -> VerifiedJWS {
        let jws = try CompactJWS(parsing: token, headers: headers)
        let instant = jws.signedDate ?? now()
        let key = jws.header.chain
        let entry: ChainCache.Entry
        if let cached = cache.entry(for: key, at: instant) {
            entry = cached
        } else {
            let leaf = try JWSVerifier.certificate(key.leaf, index: 0)
            let intermediate = try JWSVerifier.certificate(key.intermediate, index: 1)
            let chain = try verifyChain(leaf: leaf, intermediate: intermediate, at: instant)
            entry = ChainCache.Entry(chain: chain, key: try leaf.p256PublicKey())
            cache.insert(entry, for: key)
        }
        try entry.key.verify(signature: jws.signature, digest: try jws.signingInputDigest(of: token))
        return VerifiedJWS(
            header: jws.header.parameters, payload: jws.payload, payloadObject: jws.payloadObject, signedDate: jws.signedDate, judgedAt: instant,
            leaf: entry.chain.leaf)
    }

    /// Verifies that `leaf` and `intermediate` chain to a root certificate at `milliseconds`
    /// (to the second, offline) and carry the OIDs; never cached.
    /// - Throws: ``SignatureError/certificateExpired(_:subject:notAfter:at:)``,
    ///   ``SignatureError/certificateNotYetValid(_:subject:notBefore:at:)``,
    ///   ``SignatureError/untrustedChain(reason:)``, ``SignatureError/missingLeafOID(_:subject:)``,
    ///   ``SignatureError/missingIntermediateOID(_:subject:)``.
    public func verifyChain(leaf: Certificate, intermediate: Certificate, at milliseconds: Int64) throws(SignatureError) -> VerifiedChain {
        let chain = try trust.verify(leaf: leaf, intermediate: intermediate, at: milliseconds)
        guard leaf.hasExtension(oid: leafOID) else { throw .missingLeafOID(leafOID, subject: leaf.subject) }
        guard intermediate.hasExtension(oid: intermediateOID) else {
            throw .missingIntermediateOID(intermediateOID, subject: intermediate.subject)
        }
        return chain
    }

    /// The number of chains the cache holds.
    var cachedChains: Int { cache.count }
    /// The number of headers the cache holds.
    var cachedHeaders: Int { headers.count }

    private static func certificate(_ der: [UInt8], index: Int) throws(SignatureError) -> Certificate {
        do {
            return try Certificate(der: der)
        } catch {
            guard case .invalidCertificate(let reason) = error else { throw error }
            throw .undecodableCertificate(index: index, reason: reason)
        }
    }
}

extension JWSVerifier {
    /// The payload of a compact JWS checked for shape only (three base64url parts, `alg` ES256,
    /// a three-certificate `x5c`), without verifying its chain or signature: for data whose
    /// signature the caller's own store verified when it took it in.
    /// - Returns: the payload as the shape check parsed it (a JSON object).
    /// - Throws: ``SignatureError`` for a token of the wrong shape.
    public static func unverifiedPayload(utf8 token: [UInt8]) throws(SignatureError) -> JSONValue {
        try CompactJWS(parsing: token).payloadObject
    }

    /// ``unverifiedPayload(utf8:)`` of the token whose UTF-8 bytes `token` points at, read in place.
    package static func unverifiedPayload(bytes token: UnsafeBufferPointer<UInt8>) throws(SignatureError) -> JSONValue {
        try CompactJWS(parsing: token).payloadObject
    }
}
