/// One `-----BEGIN LABEL-----` … `-----END LABEL-----` block of PEM text (RFC 7468), decoded.
struct PEMBlock: Sendable {
    /// The label, such as `CERTIFICATE` or `PRIVATE KEY`.
    let label: String
    /// The decoded base64 body.
    let der: [UInt8]
    /// The line of the BEGIN line, from 1.
    let line: Int
}

/// Reads PEM text strictly: text outside blocks is ignored (RFC 7468 §2), but a BEGIN line must be
/// exactly `-----BEGIN LABEL-----` with a label of 1 to 40 capital letters, digits and spaces, a
/// block must close with its own label, hold only base64 (no encapsulated headers), and decode
/// canonically.
///
/// Errors name lines by number and only labels that passed the check: a line's text is never
/// quoted, since it may be part of a key (a PEM pasted as one line makes the key part of its BEGIN
/// line).
enum PEM {
    /// The blocks of `text`, in order; none when it holds no BEGIN line.
    /// - Throws: ``SignatureError/invalidPEM(reason:)`` naming the block and line at fault.
    static func blocks(in text: String) throws(SignatureError) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var open: (label: String, line: Int, body: [UInt8])?
        // Lines split on bytes: a String's characters join "\r\n" into one.
        for (offset, bytes) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
            if var block = open {
                if line.hasPrefix("-----END ") {
                    guard line == "-----END \(block.label)-----" else {
                        throw .invalidPEM(reason: "line \(number) ends block \(blocks.count + 1) (BEGIN \(block.label), line \(block.line)) with another END line")
                    }
                    guard let der = Base64.decode(block.body[...], .standard) else {
                        let problem = Base64.problem(in: block.body[...], .standard)
                        throw .invalidPEM(reason: "block \(blocks.count + 1) (\(block.label), line \(block.line)) is not base64: \(problem)")
                    }
                    blocks.append(PEMBlock(label: block.label, der: der, line: block.line))
                    open = nil
                } else if line.hasPrefix("-----BEGIN ") {
                    throw .invalidPEM(reason: "line \(number) begins a block inside block \(blocks.count + 1) (BEGIN \(block.label), line \(block.line))")
                } else if line.contains(":") {
                    throw .invalidPEM(reason: "block \(blocks.count + 1) (\(block.label), line \(block.line)) has headers (line \(number)); encrypted PEM is not supported")
                } else {
                    block.body.append(contentsOf: line.utf8.filter { $0 != 0x20 && $0 != 0x09 })
                    open = block
                }
            } else if line.hasPrefix("-----BEGIN ") {
                guard let label = beginLabel(line) else {
                    throw .invalidPEM(reason: "line \(number) is not a BEGIN line (-----BEGIN LABEL----- with a label of 1 to 40 A-Z, 0-9 and spaces)")
                }
                open = (label, number, [])
            }
        }
        if let block = open {
            throw .invalidPEM(reason: "block \(blocks.count + 1) (BEGIN \(block.label), line \(block.line)) has no END line")
        }
        return blocks
    }

    /// The label of `line` when it is exactly `-----BEGIN [A-Z0-9 ]{1,40}-----`, else nil.
    static func beginLabel(_ line: String) -> String? {
        let bytes = Array(line.utf8)
        let prefix = Array("-----BEGIN ".utf8), suffix = Array("-----".utf8)
        guard bytes.count > prefix.count + suffix.count, bytes.starts(with: prefix), bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        let label = bytes[prefix.count..<(bytes.count - suffix.count)]
        guard label.count <= 40, label.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x20 }) else { return nil }
        return String(decoding: label, as: UTF8.self)
    }
}
