/// One DER element of an app receipt's content: its tag byte, where it starts, and its content
/// (a slice whose indices are offsets into the receipt's content).
struct DERElement {
    /// The identifier byte (a low tag number: 0x02 INTEGER, 0x04 OCTET STRING, 0x0C UTF8String,
    /// 0x30 SEQUENCE, 0x31 SET).
    let tag: UInt8
    /// The offset of the identifier byte.
    let offset: Int
    /// The content octets.
    let content: ArraySlice<UInt8>
}

/// A strict DER reader over the elements of one value, one level at a time: it never descends on
/// its own, so nesting is only as deep as the caller's schema, whatever the input holds.
///
/// Refused, each with its offset: a truncated tag or length, the high tag number form, an
/// indefinite length (BER only), a length in more bytes than it needs or in more than four, and
/// a length that runs past the enclosing value.
struct DERReader {
    private var remaining: ArraySlice<UInt8>

    /// A reader over `bytes`, whose indices are offsets into the receipt's content.
    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    /// Whether every element has been read.
    var isAtEnd: Bool { remaining.isEmpty }

    /// The next element.
    mutating func next() throws(AppReceiptError) -> DERElement {
        let start = remaining.startIndex
        guard remaining.count >= 2 else { throw .invalidASN1(offset: start, reason: "truncated: a tag and a length expected, \(remaining.count) byte left") }
        let tag = remaining[start]
        guard tag & 0x1F != 0x1F else { throw .invalidASN1(offset: start, reason: "a tag in the high tag number form (no receipt field has one)") }
        let first = remaining[start + 1]
        var index = start + 2
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count != 0 else { throw .invalidASN1(offset: start, reason: "an indefinite length (DER needs definite lengths)") }
            guard count <= 4 else { throw .invalidASN1(offset: start, reason: "a length in \(count) bytes (at most 4)") }
            guard remaining.count - 2 >= count else { throw .invalidASN1(offset: start, reason: "truncated: a length of \(count) bytes expected") }
            length = 0
            for byte in remaining[index..<index + count] { length = length << 8 | Int(byte) }
            index += count
            guard length >= 0x80, length >> (8 * (count - 1)) != 0 else {
                throw .invalidASN1(offset: start, reason: "the length \(length) written in \(count) bytes, more than it needs (not DER)")
            }
        }
        guard length <= remaining.endIndex - index else {
            throw .invalidASN1(offset: start, reason: "a length of \(length) bytes runs past the end of its enclosing value (\(remaining.endIndex - index) left)")
        }
        let content = remaining[index..<index + length]
        remaining = remaining[(index + length)...]
        return DERElement(tag: tag, offset: start, content: content)
    }

    /// The next element, which must have `tag`; `what` names it in the error.
    mutating func next(_ tag: UInt8, _ what: String) throws(AppReceiptError) -> DERElement {
        if isAtEnd { throw .invalidASN1(offset: remaining.startIndex, reason: "\(what) expected, found the end of its enclosing value") }
        let element = try next()
        guard element.tag == tag else {
            throw .invalidASN1(offset: element.offset, reason: "\(what) (tag 0x\(hex(tag))) expected, found tag 0x\(hex(element.tag))")
        }
        return element
    }

    /// The only element of `bytes`, which must have `tag` and fill them.
    static func only(_ bytes: ArraySlice<UInt8>, _ tag: UInt8, _ what: String) throws(AppReceiptError) -> DERElement {
        var reader = DERReader(bytes)
        let element = try reader.next(tag, what)
        guard reader.isAtEnd else { throw .invalidASN1(offset: reader.remaining.startIndex, reason: "bytes after \(what)") }
        return element
    }

    /// An INTEGER's value: one to eight content bytes, two's complement, minimal.
    static func integer(_ element: DERElement, _ what: String) throws(AppReceiptError) -> Int64 {
        let bytes = element.content
        guard (1...8).contains(bytes.count) else {
            throw .invalidASN1(offset: element.offset, reason: "\(what) in \(bytes.count) bytes (1 to 8 expected)")
        }
        if bytes.count > 1 {
            let first = bytes[bytes.startIndex], second = bytes[bytes.startIndex + 1]
            guard !(first == 0x00 && second < 0x80) && !(first == 0xFF && second >= 0x80) else {
                throw .invalidASN1(offset: element.offset, reason: "\(what) written in more bytes than it needs (not DER)")
            }
        }
        var value = Int64(Int8(bitPattern: bytes[bytes.startIndex]))
        for byte in bytes.dropFirst() { value = value << 8 | Int64(byte) }
        return value
    }

    private func hex(_ byte: UInt8) -> String { String(byte, radix: 16, uppercase: true) }
}
