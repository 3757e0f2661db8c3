import COpenSSL

/// PKCS #7 (RFC 2315) signed data, read with OpenSSL without judging its signature: what an app
/// receipt wraps its content in.
public enum PKCS7 {
    /// Most bytes of a PKCS #7 structure read here (an app receipt with thousands of in-app
    /// purchases is a few hundred kilobytes).
    public static let maxBytes = 4 * 1024 * 1024

    /// The content octets of a signed-data structure whose content is data (`der`, BER or DER,
    /// and nothing after it). Neither the signature nor the certificates are looked at: the
    /// content is only as trustworthy as whoever sent it.
    /// - Throws: ``PKCS7Error`` naming what is wrong: too large, not PKCS #7 (OpenSSL's reason),
    ///   bytes after it, not signed data, content that is not data, or no content.
    public static func signedContent(der: [UInt8]) throws(PKCS7Error) -> [UInt8] {
        guard !der.isEmpty else { throw PKCS7Error("no bytes") }
        guard der.count <= maxBytes else { throw PKCS7Error("\(der.count) bytes; at most \(maxBytes)") }
        var consumed = 0
        let parsed: UnsafeMutablePointer<COpenSSL.PKCS7>? = der.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = start
            let structure = d2i_PKCS7(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - start }
            return structure
        }
        guard let parsed else { throw PKCS7Error("not a PKCS #7 structure: \(OpenSSL.takeErrors(or: "unreadable ASN.1"))") }
        defer { PKCS7_free(parsed) }
        guard consumed == der.count else {
            throw PKCS7Error("the structure ends at offset \(consumed), before the end of the \(der.count) bytes")
        }
        let type = OBJ_obj2nid(parsed.pointee.type)
        guard type == NID_pkcs7_signed, let signed = parsed.pointee.d.sign else {
            throw PKCS7Error("the structure is \(name(of: type)), not signed data")
        }
        guard let content = signed.pointee.contents else { throw PKCS7Error("the signed data has no content info") }
        let contentType = OBJ_obj2nid(content.pointee.type)
        guard contentType == NID_pkcs7_data else { throw PKCS7Error("the signed content is \(name(of: contentType)), not data") }
        guard let octets = content.pointee.d.data, let bytes = ASN1_STRING_get0_data(octets) else {
            throw PKCS7Error("the signed data carries no content (detached)")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(octets))))
    }

    /// A content type's short name, or its number when OpenSSL has none.
    private static func name(of nid: Int32) -> String {
        guard nid != NID_undef, let name = OBJ_nid2sn(nid) else { return "an unknown content type" }
        return String(cString: name)
    }
}
