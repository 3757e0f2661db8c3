import MastheadJSON

/// The answers of the App Store Server API, read from their JSON bodies.
///
/// Every member is optional, as in Apple's models, but a member of the wrong JSON type is a
/// ``FormatError`` naming its path and line; unknown members are ignored. The signed tokens they
/// carry are returned as text, still to verify (``SignedDataVerifier``).
protocol ServerAPIResponse {
    /// What the top-level object is called in an error, such as "a status response object".
    static var what: String { get }

    /// Reads the members of the top-level object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> Self
}

extension ServerAPIResponse {
    /// Reads a response body parsed already, found at `path`.
    static func reading(_ value: JSONValue, path: String) throws(FormatError) -> Self {
        try value.withUnsafeValue { (node) throws(FormatError) in try read(node, SignedFields(node, path: path, what: what)) }
    }
}
