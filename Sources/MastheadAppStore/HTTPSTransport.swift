import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One blocking HTTP client for Apple's endpoints (verifyReceipt and the App Store Server API),
/// through Foundation's `URLSession`: a request out, the status, headers and body back.
///
/// Each exchange has a timeout; an answer whose body would pass ``maxResponseBytes`` is cut off
/// and reported as ``TransportFailure/tooLarge(url:limit:)``, so a broken or hostile peer cannot
/// make the process hold an unbounded body. Redirects are not followed. Safe to use from several
/// threads at once; each call blocks its thread until the exchange ends.
public final class HTTPSTransport: Sendable {
    /// Seconds an exchange may take before it fails.
    public let timeoutSeconds: Double
    /// The largest response body taken.
    public let maxResponseBytes: Int
    private let session: URLSession
    private let exchanges: Exchanges

    /// Creates a transport with its own session.
    public init(timeoutSeconds: Double = 30, maxResponseBytes: Int = 4 << 20) {
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        exchanges = Exchanges(maxBytes: maxResponseBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    /// A request: method, absolute URL, header fields and body.
    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// Creates a request.
        public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// An answer: its status, header fields (names in lower case) and body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        /// Creates an answer.
        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The `Retry-After` field as a whole number of seconds; nil when absent or given as a date.
        public var retryAfterSeconds: Int? {
            guard let text = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0 else { return nil }
            return seconds
        }
    }

    /// Why an exchange gave no answer.
    public enum TransportFailure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The URL cannot be used.
        case invalidURL(String)
        /// The network failed, or the exchange timed out.
        case network(url: String, reason: String)
        /// The body was longer than the limit; it was not read further.
        case tooLarge(url: String, limit: Int)

        public var description: String {
            switch self {
            case .invalidURL(let url): "invalid URL \(url)"
            case .network(let url, let reason): "\(url) unreachable: \(reason)"
            case .tooLarge(let url, let limit): "\(url) answered more than \(limit) bytes"
            }
        }
    }

    /// Sends `request` and waits for the whole answer.
    public func send(_ request: Request) -> Result<Response, TransportFailure> {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            return .failure(.invalidURL(request.url))
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let task = session.dataTask(with: urlRequest)
        let exchange = exchanges.begin(task.taskIdentifier)
        task.resume()
        exchange.done.wait()
        let outcome = exchanges.end(task.taskIdentifier)
        if outcome.tooLarge { return .failure(.tooLarge(url: request.url, limit: maxResponseBytes)) }
        if let error = outcome.error { return .failure(.network(url: request.url, reason: error)) }
        guard let response = outcome.response else { return .failure(.network(url: request.url, reason: "no answer")) }
        return .success(Response(status: response.status, headers: response.headers, body: outcome.body))
    }
}

/// The session's delegate: collects each task's answer, cuts off bodies past the limit, and wakes
/// the thread waiting for the task.
private final class Exchanges: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What one task has received so far.
    struct Outcome {
        var response: (status: Int, headers: [String: String])?
        var body: [UInt8] = []
        var tooLarge = false
        var error: String?
    }

    /// The semaphore the sending thread waits on.
    struct Waiter: Sendable {
        let done = DispatchSemaphore(value: 0)
    }

    private let maxBytes: Int
    private let state = Mutex<[Int: (waiter: Waiter, outcome: Outcome)]>([:])

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    func begin(_ task: Int) -> Waiter {
        let waiter = Waiter()
        state.withLock { $0[task] = (waiter, Outcome()) }
        return waiter
    }

    func end(_ task: Int) -> Outcome { state.withLock { $0.removeValue(forKey: task)?.outcome ?? Outcome(error: "no answer") } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let tooLarge = response.expectedContentLength > Int64(maxBytes)
        state.withLock { exchanges in
            exchanges[dataTask.taskIdentifier]?.outcome.response = (http?.statusCode ?? 0, headers)
            if tooLarge { exchanges[dataTask.taskIdentifier]?.outcome.tooLarge = true }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cut = state.withLock { exchanges -> Bool in
            guard var exchange = exchanges[dataTask.taskIdentifier], !exchange.outcome.tooLarge else { return false }
            if exchange.outcome.body.count + data.count > maxBytes {
                exchange.outcome.tooLarge = true
                exchange.outcome.body = []
            } else {
                exchange.outcome.body.append(contentsOf: data)
            }
            exchanges[dataTask.taskIdentifier] = exchange
            return exchange.outcome.tooLarge
        }
        if cut { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiter = state.withLock { exchanges -> Exchanges.Waiter? in
            if let error, exchanges[task.taskIdentifier]?.outcome.tooLarge == false {
                exchanges[task.taskIdentifier]?.outcome.error = error.localizedDescription
            }
            return exchanges[task.taskIdentifier]?.waiter
        }
        waiter?.done.signal()
    }
}
