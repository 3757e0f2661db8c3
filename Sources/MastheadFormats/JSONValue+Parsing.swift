import MastheadJSON

extension JSONValue {
    /// The root of the JSON document in `bytes`, for the readers of this module.
    /// - Throws: ``FormatError/invalidJSON(_:)`` when the bytes are not valid JSON.
    static func parsed(_ bytes: [UInt8]) throws(FormatError) -> JSONValue {
        do { return try JSONDocument(parsing: bytes).root } catch { throw FormatError.invalidJSON(error) }
    }
}
