import COpenSSL

/// An X.509 certificate, parsed by OpenSSL from its DER bytes.
///
/// Equal certificates have equal DER bytes. A certificate is read-only once parsed, so it may
/// be shared between threads.
public struct Certificate: Hashable, Sendable {
    /// The DER encoding, as given.
    public let der: [UInt8]
    let handle: X509Handle

    /// Parses one DER certificate; trailing bytes are refused.
    /// - Throws: ``SignatureError/invalidCertificate(reason:)`` with OpenSSL's reason.
    public init(der: [UInt8]) throws(SignatureError) {
        guard !der.isEmpty else { throw .invalidCertificate(reason: "no bytes") }
        var consumed = 0
        let pointer: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return parsed
        }
        guard let pointer else { throw .invalidCertificate(reason: OpenSSL.takeErrors(or: "OpenSSL cannot parse it")) }
        let handle = X509Handle(pointer)
        guard consumed == der.count else {
            throw .invalidCertificate(reason: "\(der.count - consumed) bytes follow the certificate's \(consumed)")
        }
        guard let notBefore = OpenSSL.milliseconds(X509_get0_notBefore(pointer)),
            let notAfter = OpenSSL.milliseconds(X509_get0_notAfter(pointer))
        else { throw .invalidCertificate(reason: OpenSSL.takeErrors(or: "its validity dates are not valid times")) }
        self.der = der
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.handle = handle
    }

    /// The first instant the certificate is valid, in milliseconds since the Unix epoch.
    public let notBefore: Int64

    /// The last instant the certificate is valid, in milliseconds since the Unix epoch.
    public let notAfter: Int64

    /// Whether `milliseconds` (since the Unix epoch) lies in the validity window, ends included,
    /// judged to the second as OpenSSL judges it.
    public func isValid(at milliseconds: Int64) -> Bool {
        let second = UTCTime.wholeSecond(milliseconds)
        return notBefore <= second && second <= notAfter
    }

    /// The subject's distinguished name, RFC 2253 style in the order the certificate lists it
    /// (`CN=Apple Root CA - G3,OU=Apple Certification Authority,O=Apple Inc.,C=US`).
    public var subject: String { handle.subject }

    /// The SHA-256 digest of the DER bytes: the certificate's usual fingerprint.
    public func sha256Fingerprint() throws(SignatureError) -> [UInt8] {
        try OpenSSL.sha256(der[...])
    }

    /// Whether the certificate carries an extension with object identifier `oid`, given in
    /// dotted form (`1.2.840.113635.100.6.11.1`), critical or not.
    public func hasExtension(oid: String) -> Bool {
        let count = X509_get_ext_count(handle.pointer)
        var text = [CChar](repeating: 0, count: 128)
        for index in 0..<count {
            guard let object = X509_EXTENSION_get_object(X509_get_ext(handle.pointer, index)) else { continue }
            let length = OBJ_obj2txt(&text, Int32(text.count), object, 1)
            if length > 0 && Int(length) < text.count && String(decoding: text.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self) == oid {
                return true
            }
        }
        return false
    }

    /// The certificate's public key, which must be an elliptic-curve P-256 key.
    /// - Throws: ``SignatureError/keyNotP256(found:)`` naming the kind of key found.
    func p256PublicKey() throws(SignatureError) -> P256PublicKey {
        guard let key = X509_get0_pubkey(handle.pointer) else {
            throw .keyNotP256(found: OpenSSL.takeErrors(or: "no readable public key"))
        }
        try P256PublicKey.requireP256(key)
        return P256PublicKey(key: key, owner: handle)
    }

    public static func == (left: Certificate, right: Certificate) -> Bool { left.der == right.der }

    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
}

/// An OpenSSL `X509`, freed with its last reference.
///
/// Shared between threads read-only: OpenSSL 3 computes an `X509`'s cached extension data under
/// the certificate's own lock, and nothing else in it changes after parsing.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// The subject name printed RFC 2253 style, in the certificate's order.
    var subject: String { X509Handle.subject(of: pointer) }

    /// The subject name of the `X509` at `pointer`, printed RFC 2253 style in the certificate's order.
    static func subject(of pointer: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "(subject unavailable)" }
        defer { BIO_free(bio) }
        guard masthead_print_name(bio, X509_get_subject_name(pointer)) >= 0 else {
            return OpenSSL.takeErrors(or: "(subject unavailable)")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = masthead_bio_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
