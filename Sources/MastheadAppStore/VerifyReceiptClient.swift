import Foundation
import MastheadFormats
import MastheadJSON

/// Re-verifies a base64 receipt with Apple's verifyReceipt endpoint (seed 003, "Bonus Step 6").
///
/// Production first; a 21007 answer (a sandbox receipt) moves to the sandbox URL and a 21008 the
/// reverse. Network failures, HTTP 5xx and the retryable statuses (21005, 21100–21199) are retried
/// with exponential backoff. The URLs are configurable, so tests point them at a local fake:
/// `https://` only, unless `allowsHTTP` (the password travels in the request's body).
/// Requests go through an ``HTTPSTransport``, the one the App Store Server API client uses too.
public struct VerifyReceiptClient: Sendable {
    public let productionURL: String
    public let sandboxURL: String
    /// Whether `http://` URLs are asked: for tests against a local fake only.
    public let allowsHTTP: Bool
    public let password: String
    public let attempts: Int
    public let backoffMilliseconds: Int
    public let transport: HTTPSTransport

    /// Creates a client.
    /// - Parameters:
    ///   - password: the App Store shared secret.
    ///   - attempts: tries per receipt on a retryable status or a network failure.
    ///   - backoffMilliseconds: the first retry's wait; each next one twice as long.
    ///   - allowsHTTP: whether `http://` URLs are asked (tests); otherwise only `https://` ones are.
    public init(
        productionURL: String, sandboxURL: String, password: String, attempts: Int, backoffMilliseconds: Int, allowsHTTP: Bool = false,
        transport: HTTPSTransport = HTTPSTransport()
    ) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.allowsHTTP = allowsHTTP
        self.password = password
        self.attempts = attempts
        self.backoffMilliseconds = backoffMilliseconds
        self.transport = transport
    }

    /// Why a receipt could not be verified.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// A URL that is not `https://` (nor `http://` while ``allowsHTTP``); nothing was sent.
        case insecureURL(String)
        case transport(String)
        case status(Int, String)
        case unreadable(String)

        public var description: String {
            switch self {
            case .insecureURL(let url): "verifyReceipt URL must be https (http only when verifyReceiptAllowHTTP is set, for tests), not \"\(url)\""
            case .transport(let message): "verifyReceipt unreachable: \(message)"
            case .status(let status, let meaning): "verifyReceipt answered status \(status): \(meaning)"
            case .unreadable(let message): "verifyReceipt answer unreadable: \(message)"
            }
        }
    }

    /// Verifies `receiptData`; returns the response body of a usable answer (status 0 or 21006).
    public func verify(_ receiptData: String) throws(Failure) -> [UInt8] {
        var url = productionURL
        var switches = 0
        var attempt = 0
        while true {
            attempt += 1
            let outcome = post(receiptData, to: url)
            switch outcome {
            case .success(let body):
                let status: Int
                do {
                    let root = try JSONDocument(parsing: body).root
                    guard let value = root.member("status")?.int64 else { throw Failure.unreadable("no numeric status") }
                    status = Int(value)
                } catch let error as Failure {
                    throw error
                } catch {
                    throw Failure.unreadable("\(error)")
                }
                if ReceiptStatus.isUsable(status) { return body }
                if (status == 21007 || status == 21008) && switches < 2 {
                    url = status == 21007 ? sandboxURL : productionURL
                    switches += 1
                    continue
                }
                if ReceiptStatus.isRetryable(status) && attempt < attempts {
                    pause(attempt)
                    continue
                }
                throw Failure.status(status, ReceiptStatus.meaning(status))
            case .failure(let error):
                if case .insecureURL = error { throw error }
                if attempt < attempts {
                    pause(attempt)
                    continue
                }
                throw error
            }
        }
    }

    private func pause(_ attempt: Int) {
        // The configuration bounds the backoff; a product past Int.max is taken as Int.max, not a trap.
        let doubled = backoffMilliseconds.multipliedReportingOverflow(by: 1 << min(max(attempt - 1, 0), 10))
        let milliseconds = doubled.overflow ? Int.max : doubled.partialValue
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }

    private func post(_ receiptData: String, to address: String) -> Result<[UInt8], Failure> {
        let lowered = address.lowercased()
        guard lowered.hasPrefix("https://") || (allowsHTTP && lowered.hasPrefix("http://")) else { return .failure(.insecureURL(address)) }
        var writer = JSONWriter(capacity: receiptData.utf8.count + 128)
        writer.beginObject()
        writer.field("receipt-data", receiptData)
        writer.field("password", password)
        writer.field("exclude-old-transactions", false)
        writer.endObject()
        let request = HTTPSTransport.Request(method: "POST", url: address, headers: [("Content-Type", "application/json")], body: writer.bytes)
        switch transport.send(request) {
        case .failure(let failure): return .failure(.transport(failure.description))
        case .success(let response) where response.status >= 500: return .failure(.transport("HTTP \(response.status)"))
        case .success(let response): return .success(response.body)
        }
    }
}
