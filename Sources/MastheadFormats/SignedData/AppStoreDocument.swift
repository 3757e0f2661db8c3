public import MastheadJSON

/// A whole JSON document from Apple read into a value: a signed payload, once its signature has
/// been verified, or an answer of the App Store Server API.
///
/// Every member is optional, as in Apple's models, but a member of the wrong JSON type is a
/// ``FormatError`` naming its JSON path and line; unknown members are ignored. The types of
/// MastheadFormats conform; each one's ``documentReader`` says how it is read.
public protocol AppStoreDocument {
    /// How the document is read.
    static var documentReader: AppStoreDocumentReader<Self> { get }
}

extension AppStoreDocument {
    /// Parses and reads a document: a response body, or the JSON between a token's dots.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { try self.init(JSONValue.parsed(bytes)) }

    /// Reads a document parsed already, found at `path`.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) {
        let reader = Self.documentReader
        self = try value.withUnsafeValue { (root) throws(FormatError) in try reader.read(root, path: path) }
    }
}

/// How an ``AppStoreDocument`` is read: what its top-level object is called in an error, and the
/// reader of its members. Only MastheadFormats makes them.
public struct AppStoreDocumentReader<Document>: Sendable {
    /// What the top-level object is called in an error, such as "a status response object".
    let what: String
    private let readMembers: @Sendable (UnsafeJSONValue, SignedFields) throws(FormatError) -> Document

    /// Reads the document through an unowned view of its top-level value, found at `path`.
    func read(_ root: UnsafeJSONValue, path: String) throws(FormatError) -> Document {
        try readMembers(root, SignedFields(root, path: path, what: what))
    }
}

extension AppStoreDocumentReader where Document: SignedObject & SendableMetatype {
    /// The reader of a document whose top-level object, called `what` in errors, is read member by member.
    init(what: String) {
        self.what = what
        readMembers = { (root, fields) throws(FormatError) in try Document.read(root, fields) }
    }
}
