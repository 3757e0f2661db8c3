import MastheadHTTP

/// The HTTP request parser's target: one request parsed whole must come out the same as when its
/// bytes arrive in pieces, the way the event loop feeds them.
enum HTTPFuzzing {
    /// Small limits, so that short inputs reach every limit check.
    static let small: HTTPServerConfiguration = {
        var configuration = HTTPServerConfiguration()
        configuration.maxRequestLineBytes = 64
        configuration.maxHeaderFieldBytes = 128
        configuration.maxHeaderListBytes = 256
        configuration.maxHeaderCount = 8
        configuration.maxBodyBytes = 512
        return configuration
    }()

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        // The first byte chooses the limits and the piece size; the rest is the connection's bytes.
        guard let control = bytes.first else { return }
        let input = UnsafeBufferPointer(rebasing: bytes.dropFirst())
        let parser = HTTPRequestParser(configuration: control & 1 == 0 ? small : HTTPServerConfiguration())
        let pieceSize = Int(control >> 1) + 1
        var offset = 0
        // Requests one after another, as a pipelining client sends them.
        while offset < input.count {
            let rest = UnsafeBufferPointer(rebasing: input[offset...])
            let whole = Summary { () throws(HTTPError) in try parser.parse(rest) }
            let pieces = parseInPieces(parser, rest, pieceSize: pieceSize)
            precondition(whole == pieces, "parsed whole: \(whole); in pieces of \(pieceSize): \(pieces)")
            guard case .request(let consumed) = whole else { return }
            precondition(consumed > 0 && consumed <= rest.count, "consumed \(consumed) of \(rest.count) bytes")
            offset += consumed
        }
    }

    /// What the event loop does with a slow client: parse the bytes received so far, passing
    /// on the `headSearched` hint, until the outcome is no longer incomplete.
    static func parseInPieces(_ parser: HTTPRequestParser, _ bytes: UnsafeBufferPointer<UInt8>, pieceSize: Int) -> Summary {
        var received = 0
        var hint = 0
        var headReported = false
        while true {
            received = min(bytes.count, received + pieceSize)
            let outcome: HTTPRequestParser.Outcome
            do {
                outcome = try parser.parse(UnsafeBufferPointer(rebasing: bytes[..<received]), headSearchedUpTo: hint, headReported: headReported)
            } catch {
                return .failure
            }
            switch outcome {
            case .incomplete(let searched):
                precondition(searched >= 0 && searched <= received, "headSearched \(searched) outside 0...\(received)")
                hint = searched
            case .head:
                // The event loop checks the head once (and answers 100 Continue), then waits for the body.
                precondition(!headReported, "a head reported twice")
                headReported = true
            case .request:
                return Summary { outcome }
            }
            if received == bytes.count { return .incomplete }
        }
    }

    /// An outcome reduced to what must not depend on how the bytes arrived. (Which error status
    /// a bad request gets may: a request line that is both malformed and followed by too many
    /// header bytes is refused for whichever problem is seen first.)
    enum Summary: Equatable {
        case incomplete
        case request(consumed: Int)
        case failure

        /// Every refusal is an ``HTTPError``, after which the server closes the connection.
        init(_ parse: () throws(HTTPError) -> HTTPRequestParser.Outcome) {
            let outcome: HTTPRequestParser.Outcome
            do { outcome = try parse() } catch {
                self = .failure
                return
            }
            switch outcome {
            // The body of a request has not all arrived.
            case .incomplete, .head: self = .incomplete
            case .request(let request, let consumed, _):
                // The parts read from the request's bytes agree with its strings.
                for (index, segment) in request.pathSegments.enumerated() {
                    precondition(String(decoding: request.pathSegmentBytes(index), as: UTF8.self) == segment, "path segment \(index)")
                }
                for field in request.headers {
                    precondition(request.header(field.name) == request.headers.first { $0.name == field.name }?.value, "header \(field.name)")
                }
                for name in request.query.keys { _ = request.queryValue(name) }
                self = .request(consumed: consumed)
            }
        }
    }
}
