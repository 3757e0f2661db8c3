extension Certificate {
    /// The certificates of PEM text (`-----BEGIN CERTIFICATE-----` blocks), in order.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` when the text holds no block, a block of
    ///   another kind, or a block that is not a DER certificate.
    public static func certificates(pem text: String) throws(SignatureError) -> [Certificate] {
        let blocks = try PEM.blocks(in: text)
        guard !blocks.isEmpty else { throw .invalidPEM(reason: "no -----BEGIN CERTIFICATE----- block") }
        var certificates: [Certificate] = []
        for (index, block) in blocks.enumerated() {
            guard block.label == "CERTIFICATE" else {
                throw .invalidPEM(reason: "block \(index + 1) (line \(block.line)) is \(block.label), not CERTIFICATE")
            }
            do {
                certificates.append(try Certificate(der: block.der))
            } catch {
                throw .invalidPEM(reason: "block \(index + 1) (line \(block.line)): \(error)")
            }
        }
        return certificates
    }

    /// The certificates of a file's bytes: one DER certificate, or PEM text holding one or more.
    ///
    /// DER is recognised by its first byte (an ASN.1 SEQUENCE, 0x30); anything else is read as PEM.
    /// - Throws: ``SignatureError/invalidCertificate(reason:)`` for DER,
    ///   ``SignatureError/invalidPEM(reason:)`` for PEM.
    public static func certificates(derOrPEM bytes: [UInt8]) throws(SignatureError) -> [Certificate] {
        if bytes.first == 0x30 { return [try Certificate(der: bytes)] }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidPEM(reason: "neither DER (which starts with byte 0x30) nor UTF-8 PEM text")
        }
        return try certificates(pem: text)
    }
}
