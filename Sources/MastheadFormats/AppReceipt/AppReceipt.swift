import MastheadCrypto

/// The in-app purchases of an app receipt (the base64 receipt an app still sends), read only for
/// their transaction ids, as Apple's `ReceiptUtility` reads them: nothing in it is verified, and
/// it is only a pointer for asking the App Store Server API.
///
/// The receipt is PKCS #7 signed data (read by ``PKCS7``, BER or DER) whose content is a DER SET
/// of attributes `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`; each attribute
/// of type 17 is an in-app purchase, whose value holds a SET of attributes of the same shape:
/// type 1703 its transaction id and type 1705 its original transaction id, each a UTF8String.
/// Every attribute must have that shape; attributes of other types are skipped unread.
public struct AppReceipt: Hashable, Sendable {
    /// The ids of one in-app purchase.
    public struct InAppPurchase: Hashable, Sendable {
        /// Its transaction id (type 1703).
        public let transactionId: String
        /// Its original transaction id (type 1705), absent from receipts made by Xcode.
        public let originalTransactionId: String?
    }

    /// Most ASCII digits of a transaction id.
    public static let maxTransactionIdLength = 64

    /// The receipt's in-app purchases, in the order of its encoding; empty when it has none.
    public let inAppPurchases: [InAppPurchase]

    /// The id to ask Apple's Get Transaction History with, which answers every transaction of the
    /// customer from any one of them: the last in-app purchase's original transaction id, or its
    /// transaction id when it has none (the id Apple's `ReceiptUtility` answers); nil when the
    /// receipt holds no in-app purchase.
    public var transactionIdToAsk: String? {
        inAppPurchases.last.map { $0.originalTransactionId ?? $0.transactionId }
    }

    /// Reads a receipt from its base64 text (standard alphabet, padded, nothing else).
    public init(base64 text: String) throws(AppReceiptError) {
        let der: [UInt8]
        do { der = try Base64.decode(text, .standard) } catch {
            guard case .invalidBase64(_, let reason) = error else { throw .invalidBase64(error.description) }
            throw .invalidBase64(reason)
        }
        try self.init(der: der)
    }

    /// Reads a receipt from its PKCS #7 bytes.
    public init(der: [UInt8]) throws(AppReceiptError) {
        let content: [UInt8]
        do { content = try PKCS7.signedContent(der: der) } catch { throw .notPKCS7(error) }
        try self.init(content: content)
    }

    /// Reads a receipt from its signed content (the SET of attributes).
    public init(content: [UInt8]) throws(AppReceiptError) {
        var purchases: [InAppPurchase] = []
        let set = try DERReader.only(content[...], 0x31, "the receipt's SET of attributes")
        var attributes = DERReader(set.content)
        while !attributes.isAtEnd {
            let (type, value) = try Self.attribute(&attributes, "receipt attribute")
            guard type == 17 else { continue }
            purchases.append(try Self.inAppPurchase(value))
        }
        inAppPurchases = purchases
    }

    /// The next attribute's type and value: a SEQUENCE of INTEGER, INTEGER and OCTET STRING.
    private static func attribute(_ reader: inout DERReader, _ what: String) throws(AppReceiptError) -> (type: Int64, value: DERElement) {
        let sequence = try reader.next(0x30, "a \(what) SEQUENCE")
        var fields = DERReader(sequence.content)
        let type = try DERReader.integer(try fields.next(0x02, "the \(what)'s type INTEGER"), "the \(what)'s type")
        _ = try DERReader.integer(try fields.next(0x02, "the \(what)'s version INTEGER"), "the \(what)'s version")
        let value = try fields.next(0x04, "the \(what)'s value OCTET STRING")
        guard fields.isAtEnd else { throw .invalidASN1(offset: value.content.endIndex, reason: "bytes after the \(what)'s value") }
        return (type, value)
    }

    /// An in-app purchase from its attribute's value: its transaction id (required, once) and
    /// original transaction id (at most once).
    private static func inAppPurchase(_ value: DERElement) throws(AppReceiptError) -> InAppPurchase {
        let set = try DERReader.only(value.content, 0x31, "the in-app purchase's SET of attributes")
        var attributes = DERReader(set.content)
        var transactionId: String?
        var originalTransactionId: String?
        while !attributes.isAtEnd {
            let (type, field) = try attribute(&attributes, "in-app purchase attribute")
            switch type {
            case 1703:
                guard transactionId == nil else { throw .invalidASN1(offset: field.offset, reason: "a second transaction id (type 1703) in one in-app purchase") }
                transactionId = try self.transactionId(field)
            case 1705:
                guard originalTransactionId == nil else {
                    throw .invalidASN1(offset: field.offset, reason: "a second original transaction id (type 1705) in one in-app purchase")
                }
                originalTransactionId = try self.transactionId(field)
            default: continue
            }
        }
        guard let transactionId else { throw .invalidASN1(offset: value.offset, reason: "an in-app purchase without a transaction id (type 1703)") }
        return InAppPurchase(transactionId: transactionId, originalTransactionId: originalTransactionId)
    }

    /// A transaction id: the value's only element, a UTF8String of 1 to ``maxTransactionIdLength`` ASCII digits.
    private static func transactionId(_ value: DERElement) throws(AppReceiptError) -> String {
        let text = try DERReader.only(value.content, 0x0C, "a transaction id UTF8String")
        let bytes = text.content
        guard !bytes.isEmpty, bytes.count <= maxTransactionIdLength, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidTransactionId(offset: text.offset, value: String(decoding: bytes.prefix(maxTransactionIdLength), as: UTF8.self))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
