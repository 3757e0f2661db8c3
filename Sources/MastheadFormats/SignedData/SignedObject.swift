import MastheadJSON

/// A value read from one JSON object of signed data or of an App Store Server API answer, member
/// by member, as Apple's models type them (R2.8): it starts empty and takes the members it knows;
/// unknown members are ignored.
protocol SignedObject {
    /// The empty value, before any member is read.
    init()

    /// Takes member `key`, whose value is `value`, when it is one the type knows.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError)
}

extension SignedObject {
    /// Reads every member of `object`, in document order.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> Self {
        var result = Self()
        for (key, value) in object.members { try result.read(member: key, value, fields) }
        return result
    }
}

/// A ``SignedObject`` that is a whole document, such as a signed payload or an API answer.
protocol SignedRoot: SignedObject, AppStoreDocument {}

extension SignedRoot {
    /// Reads a document through an unowned view of its top-level value, found at `path`.
    static func read(_ root: UnsafeJSONValue, path: String) throws(FormatError) -> Self {
        try read(root, SignedFields(root, path: path, what: documentReader.what))
    }
}
