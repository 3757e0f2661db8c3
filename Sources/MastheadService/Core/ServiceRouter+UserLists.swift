import MastheadHTTP
import MastheadJSON

extension ServiceRouter {
    /// A user's list as `{"userId": …, "<key>": [ … ]}`, each element written by `write`: the
    /// shape of every "the user's …" route. 404 `unknown_user` when `read` answers nil (the store
    /// does not know the user), 503 when it fails.
    func userList<Element>(
        userId: String, key: String, bytesPerElement: Int, read: () throws -> [Element]?, write: (Element, inout JSONWriter) -> Void
    ) throws(AnyServiceFailure) -> HTTPResponse {
        let elements: [Element]?
        do { elements = try read() } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let elements else { throw AnyServiceFailure(ServiceError.unknownUser(userId)) }
        var writer = JSONWriter(capacity: 128 + bytesPerElement * elements.count)
        writer.beginObject()
        writer.field("userId", userId)
        writer.key(key)
        writer.beginArray()
        for element in elements { write(element, &writer) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }
}
