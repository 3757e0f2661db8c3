import MastheadCrypto
import MastheadFormats
import MastheadTestSupport
import Testing

/// App receipts read for their transaction ids: the public receipts of `Tests/Fixtures/app-receipts`
/// give the ids their sources expect, and every malformed receipt is refused naming what and where.
struct AppReceiptTests {
    // MARK: The public receipts

    /// Apple's own test: the Xcode receipt's one in-app purchase has transaction id `0` (and, made
    /// by Xcode, no original transaction id), the id `ReceiptUtility` answers.
    @Test func xcodeReceipt_withATransaction_givesTransactionId0_asApplesReceiptUtility() throws {
        let receipt = try AppReceipt(base64: AppReceiptFixtures.base64(AppReceiptFixtures.withTransaction))
        #expect(receipt.inAppPurchases.map(\.transactionId) == ["0"])
        #expect(receipt.inAppPurchases.map(\.originalTransactionId) == [nil])
        #expect(receipt.transactionIdToAsk == "0")
    }

    /// Apple's own test: the Xcode receipt without purchases gives no transaction id.
    @Test func xcodeReceipt_withoutPurchases_givesNoTransactionId() throws {
        let receipt = try AppReceipt(base64: AppReceiptFixtures.base64(AppReceiptFixtures.empty))
        #expect(receipt.inAppPurchases.isEmpty)
        #expect(receipt.transactionIdToAsk == nil)
    }

    /// RevenueCat's sandbox receipt (DER, signed by Apple): its nine in-app purchases in encoding
    /// order, as that repository's tests expect them, all of subscription 1000000692878476, the
    /// id to ask Apple with.
    @Test func sandboxReceipt_givesItsNinePurchases_inOrder_andTheOriginalTransactionIdToAsk() throws {
        let receipt = try AppReceipt(base64: AppReceiptFixtures.base64(AppReceiptFixtures.sandbox))
        let expected = [
            "1000000692879214", "1000000692901513", "1000000692902182", "1000000692902990", "1000000692905419", "1000000692905971",
            "1000000692906727", "1000000696553650", "1000000692878476",
        ]
        #expect(receipt.inAppPurchases.map(\.transactionId) == expected)
        #expect(receipt.inAppPurchases.allSatisfy { $0.originalTransactionId == "1000000692878476" })
        #expect(receipt.transactionIdToAsk == "1000000692878476")
    }

    // MARK: The layers: base64, PKCS #7

    /// Base64 with a line break (as `lineLength64Characters` writes it) or cut short is refused
    /// as base64, naming the offset or the length.
    @Test func receipt_notStrictBase64_isRefusedAsBase64_namingWhere() throws {
        let text = try AppReceiptFixtures.base64(AppReceiptFixtures.withTransaction)
        let broken = String(text.prefix(64)) + "\r\n" + String(text.dropFirst(64))
        #expect(throws: AppReceiptError.invalidBase64("byte 0xD at offset 64 is not in the base64 alphabet")) { try AppReceipt(base64: broken) }
        let error = try #require(throws: AppReceiptError.self) { try AppReceipt(base64: String(text.dropLast(3))) }
        #expect(error.description.hasPrefix("the app receipt is not base64: \(text.count - 3) characters, not a multiple of 4"), "\(error)")
    }

    /// The receipt's bytes cut anywhere (at a base64 group's boundary, so the base64 stays valid)
    /// are refused as PKCS #7, never read as a receipt with fewer purchases.
    @Test(arguments: [AppReceiptFixtures.withTransaction, AppReceiptFixtures.sandbox])
    func receipt_truncated_isRefusedAsPKCS7(_ name: String) throws {
        let der = try Base64.decode(AppReceiptFixtures.base64(name), .standard)
        for length in stride(from: 0, to: der.count, by: max(1, der.count / 97)) {
            let error = try #require(throws: AppReceiptError.self) { try AppReceipt(der: Array(der.prefix(length))) }
            guard case .notPKCS7 = error else {
                Issue.record("\(length) of \(der.count) bytes: \(error)")
                continue
            }
        }
    }

    /// Bytes after the PKCS #7 structure are refused, naming their offset; so are bytes that are
    /// not PKCS #7 at all, and PKCS #7 that is not signed data.
    @Test func receipt_withTrailingBytes_orNotSignedData_isRefusedAsPKCS7() throws {
        let der = try Base64.decode(AppReceiptFixtures.base64(AppReceiptFixtures.sandbox), .standard)
        let trailing = try #require(throws: AppReceiptError.self) { try AppReceipt(der: der + [0]) }
        #expect(trailing.description == "the app receipt is not PKCS #7 signed data: the structure ends at offset \(der.count), before the end of the \(der.count + 1) bytes")
        let notPKCS7 = try #require(throws: AppReceiptError.self) { try AppReceipt(der: Array("not a receipt".utf8)) }
        #expect(notPKCS7.description.hasPrefix("the app receipt is not PKCS #7 signed data: not a PKCS #7 structure: "), "\(notPKCS7)")
        // SEQUENCE { OID pkcs7-data, [0] { OCTET STRING "" } }: PKCS #7, but data, not signed data.
        let data = Self.tlv(0x30, Self.tlv(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]) + Self.tlv(0xA0, Self.tlv(0x04, [])))
        let notSigned = try #require(throws: AppReceiptError.self) { try AppReceipt(der: data) }
        #expect(notSigned.description == "the app receipt is not PKCS #7 signed data: the structure is pkcs7-data, not signed data")
    }

    /// A crafted content wrapped in minimal signed data (no signer) is read as the receipt: the
    /// envelope is a pointer's wrapping, not trusted.
    @Test func craftedContent_inSignedData_isRead() throws {
        let content = Self.receipt([Self.purchase("42", original: "41")])
        #expect(try AppReceipt(der: Self.signedData(content)).transactionIdToAsk == "41")
    }

    // MARK: The content: strict DER

    /// The sandbox receipt's content cut at any byte is refused with the offset where the ASN.1
    /// stops making sense.
    @Test func content_truncated_isRefused_namingAnOffsetInside() throws {
        let content = try PKCS7.signedContent(der: Base64.decode(AppReceiptFixtures.base64(AppReceiptFixtures.sandbox), .standard))
        for length in stride(from: 0, to: content.count, by: 37) {
            let error = try #require(throws: AppReceiptError.self) { try AppReceipt(content: Array(content.prefix(length))) }
            guard case .invalidASN1(let offset, _) = error else {
                Issue.record("\(length) bytes: \(error)")
                continue
            }
            #expect(offset <= length, "\(length) bytes: \(error)")
        }
    }

    /// Each way content breaks DER or the receipt's shape is refused with its offset and reason.
    @Test(arguments: [
        ("indefinite length", [0x31, 0x80, 0x00, 0x00], 0, "an indefinite length (DER needs definite lengths)"),
        ("length past the end", [0x31, 0x05, 0x30, 0x00], 0, "a length of 5 bytes runs past the end of its enclosing value (2 left)"),
        ("long length not needed", [0x31, 0x81, 0x02, 0x30, 0x00], 0, "the length 2 written in 1 bytes, more than it needs (not DER)"),
        ("length in 5 bytes", [0x31, 0x85, 0x00, 0x00, 0x00, 0x00, 0x02], 0, "a length in 5 bytes (at most 4)"),
        ("high tag number", [0x1F, 0x81, 0x00, 0x00], 0, "a tag in the high tag number form (no receipt field has one)"),
        ("a SEQUENCE, not a SET", [0x30, 0x00], 0, "the receipt's SET of attributes (tag 0x31) expected, found tag 0x30"),
        ("bytes after the SET", [0x31, 0x00, 0x00], 2, "bytes after the receipt's SET of attributes"),
        ("attribute not a SEQUENCE", [0x31, 0x02, 0x04, 0x00], 2, "a receipt attribute SEQUENCE (tag 0x30) expected, found tag 0x4"),
        ("attribute without value", [0x31, 0x08, 0x30, 0x06, 0x02, 0x01, 0x11, 0x02, 0x01, 0x01], 10,
         "the receipt attribute's value OCTET STRING expected, found the end of its enclosing value"),
        ("type not minimal", [0x31, 0x0B, 0x30, 0x09, 0x02, 0x02, 0x00, 0x11, 0x02, 0x01, 0x01, 0x04, 0x00], 4,
         "the receipt attribute's type written in more bytes than it needs (not DER)"),
    ] as [(String, [UInt8], Int, String)])
    func content_breakingDER_isRefused_withOffsetAndReason(_ what: String, _ content: [UInt8], _ offset: Int, _ reason: String) {
        #expect(throws: AppReceiptError.invalidASN1(offset: offset, reason: reason), "\(what)") { try AppReceipt(content: content) }
    }

    /// An in-app purchase must carry one transaction id of digits, and at most one original.
    @Test func inAppPurchase_withoutOrWithBadTransactionIds_isRefused() throws {
        let withoutId = Self.receipt([Self.attribute(17, Self.tlv(0x31, Self.attribute(1702, Self.tlv(0x0C, Array("pass".utf8)))))])
        #expect(throws: AppReceiptError.invalidASN1(offset: 10, reason: "an in-app purchase without a transaction id (type 1703)")) {
            try AppReceipt(content: withoutId)
        }
        let letters = try #require(throws: AppReceiptError.self) { try AppReceipt(content: Self.receipt([Self.purchase("10x1", original: nil)])) }
        guard case .invalidTransactionId(_, let value) = letters else { throw letters }
        #expect(value == "10x1")
        let twice = Self.receipt([Self.attribute(17, Self.tlv(0x31, Self.attribute(1703, Self.tlv(0x0C, [0x31])) + Self.attribute(1703, Self.tlv(0x0C, [0x32]))))])
        let error = try #require(throws: AppReceiptError.self) { try AppReceipt(content: twice) }
        #expect(error.description.contains("a second transaction id (type 1703) in one in-app purchase"), "\(error)")
        let tooLong = String(repeating: "1", count: AppReceipt.maxTransactionIdLength + 1)
        #expect(throws: AppReceiptError.self) { try AppReceipt(content: Self.receipt([Self.purchase(tooLong, original: nil)])) }
        #expect(try AppReceipt(content: Self.receipt([Self.purchase(String(tooLong.dropFirst()), original: nil)])).inAppPurchases.count == 1)
    }

    /// Nesting 100,000 deep is never descended into: as a transaction id it is refused at its
    /// first level, in an attribute of another type it is skipped unread, and as the content
    /// itself it is refused at offset 0 (a recursive reader would overflow its stack).
    @Test func content_nested100000Deep_isNeverDescendedInto() throws {
        let deep = Self.nested(depth: 100_000)
        let asId = Self.receipt([Self.attribute(17, Self.tlv(0x31, Self.attribute(1703, deep)))])
        let error = try #require(throws: AppReceiptError.self) { try AppReceipt(content: asId) }
        #expect(error.description.contains("a transaction id UTF8String (tag 0xC) expected, found tag 0x30"), "\(error)")
        let skipped = Self.receipt([Self.attribute(2, deep), Self.purchase("7", original: nil)])
        #expect(try AppReceipt(content: skipped).transactionIdToAsk == "7")
        #expect(throws: AppReceiptError.invalidASN1(offset: 0, reason: "the receipt's SET of attributes (tag 0x31) expected, found tag 0x30")) {
            try AppReceipt(content: deep)
        }
    }

    /// The last in-app purchase is the one asked about: its original transaction id, or its
    /// transaction id when it has none.
    @Test func transactionIdToAsk_isTheLastPurchasesOriginal_elseItsTransactionId() throws {
        let both = try AppReceipt(content: Self.receipt([Self.purchase("1", original: "2"), Self.purchase("3", original: "4")]))
        #expect(both.transactionIdToAsk == "4")
        let noOriginal = try AppReceipt(content: Self.receipt([Self.purchase("1", original: "2"), Self.purchase("3", original: nil)]))
        #expect(noOriginal.transactionIdToAsk == "3")
    }

    // MARK: DER, written by hand

    /// A DER element: `tag`, the definite length of `content`, `content`.
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }

    /// A DER definite length.
    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A receipt attribute: SEQUENCE { INTEGER type, INTEGER 1, OCTET STRING value }.
    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        var integer: [UInt8] = []
        var rest = type
        repeat {
            integer.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        if integer[0] >= 0x80 { integer.insert(0, at: 0) }
        return tlv(0x30, tlv(0x02, integer) + tlv(0x02, [1]) + tlv(0x04, value))
    }

    /// An in-app purchase attribute (type 17) with a transaction id and an optional original.
    static func purchase(_ id: String, original: String?) -> [UInt8] {
        var fields = attribute(1703, tlv(0x0C, Array(id.utf8)))
        if let original { fields += attribute(1705, tlv(0x0C, Array(original.utf8))) }
        return attribute(17, tlv(0x31, fields))
    }

    /// A receipt's content: the SET of `attributes`.
    static func receipt(_ attributes: [[UInt8]]) -> [UInt8] { tlv(0x31, attributes.flatMap { $0 }) }

    /// `depth` SEQUENCEs, each holding the next, built from the inside out in linear time.
    static func nested(depth: Int) -> [UInt8] {
        var headers: [[UInt8]] = []
        var size = 0
        for _ in 0..<depth {
            let header = [0x30] + length(size)
            headers.append(header)
            size += header.count
        }
        return headers.reversed().flatMap { $0 }
    }

    /// Minimal PKCS #7 signed data around `content`: version 1, no digest algorithms, no signer.
    static func signedData(_ content: [UInt8]) -> [UInt8] {
        let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        let contentInfo = tlv(0x30, tlv(0x06, dataOID) + tlv(0xA0, tlv(0x04, content)))
        let signed = tlv(0x30, tlv(0x02, [1]) + tlv(0x31, []) + contentInfo + tlv(0x31, []))
        return tlv(0x30, tlv(0x06, signedDataOID) + tlv(0xA0, signed))
    }
}
