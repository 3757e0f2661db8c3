/// An HTTP response: status, headers and a body sent with `Content-Length` (none in a 204 answer).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Extra header fields (`Content-Length`, `Connection` and `Date` are added when sent).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Close the connection after this response.
    public var closeConnection: Bool

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], closeConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
    }

    /// A JSON response.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: body)
    }

    /// The header fields of a JSON response, made once and shared by every one.
    private static let jsonHeaders: [(name: String, value: String)] = [("Content-Type", "application/json")]

    /// What a response's `Connection` field says.
    enum ConnectionField {
        /// Nothing: an HTTP/1.1 connection stays open by default.
        case none
        /// `keep-alive`: an HTTP/1.0 connection stays open only when told so.
        case keepAlive
        /// `close`: the server closes the connection after this response.
        case close
    }

    /// Appends the response as bytes on the wire; without the body (the answer to HEAD) its
    /// `Content-Length` is still that of the body (RFC 9110 §9.3.2). A 204 (No Content) answer
    /// has neither a body nor `Content-Length` (RFC 9110 §8.6, §15.3.5).
    func write(into bytes: inout [UInt8], connection: ConnectionField, includeBody: Bool) {
        HTTPResponse.append("HTTP/1.1 ", to: &bytes)
        HTTPResponse.appendNumber(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: HTTPResponse.reason(status).utf8)
        HTTPResponse.append("\r\n", to: &bytes)
        for header in headers {
            bytes.append(contentsOf: header.name.utf8)
            HTTPResponse.append(": ", to: &bytes)
            bytes.append(contentsOf: header.value.utf8)
            HTTPResponse.append("\r\n", to: &bytes)
        }
        let hasBody = status != 204
        if hasBody {
            HTTPResponse.append("Content-Length: ", to: &bytes)
            HTTPResponse.appendNumber(body.count, to: &bytes)
            HTTPResponse.append("\r\n", to: &bytes)
        }
        switch connection {
        case .none: HTTPResponse.append("\r\n", to: &bytes)
        case .keepAlive: HTTPResponse.append("Connection: keep-alive\r\n\r\n", to: &bytes)
        case .close: HTTPResponse.append("Connection: close\r\n\r\n", to: &bytes)
        }
        if includeBody && hasBody { bytes.append(contentsOf: body) }
    }

    /// Appends a literal's bytes (a plain copy, no string machinery).
    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a non-negative number's decimal digits.
    private static func appendNumber(_ value: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while value / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The reason phrase of a status code.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 422: "Unprocessable Content"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
