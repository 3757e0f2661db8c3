/// Answers one request, from any thread, once.
public struct HTTPResponder: Sendable {
    let mailbox: Mailbox
    let descriptor: Int32
    let requestId: UInt64

    /// Sends the response (later calls for the same request are ignored).
    public func send(_ response: HTTPResponse) {
        mailbox.post(Mailbox.Letter(descriptor: descriptor, requestId: requestId, response: response))
    }
}
