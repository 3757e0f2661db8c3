import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Masthead
import MastheadJSON
import MastheadFormats
import Synchronization

/// Re-verifies a base64 receipt with Apple's verifyReceipt endpoint (seed 003, "Bonus Step 6").
///
/// Production first; a 21007 answer (a sandbox receipt) moves to the sandbox URL and a 21008 the
/// reverse. Network failures, HTTP 5xx and the retryable statuses (21005, 21100–21199) are retried
/// with exponential backoff. The URLs are configurable, so tests point them at a local fake.
public struct VerifyReceiptClient: Sendable {
    public let productionURL: String
    public let sandboxURL: String
    public let password: String
    public let attempts: Int
    public let backoffMilliseconds: Int

    /// Creates a client from the service configuration.
    public init(configuration: ServiceConfiguration) {
        productionURL = configuration.verifyReceiptProductionURL
        sandboxURL = configuration.verifyReceiptSandboxURL
        password = configuration.sharedSecret
        attempts = configuration.verifyReceiptAttempts
        backoffMilliseconds = configuration.verifyReceiptBackoffMilliseconds
    }

    /// Why a receipt could not be verified.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case transport(String)
        case status(Int, String)
        case unreadable(String)

        public var description: String {
            switch self {
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
                if attempt < attempts {
                    pause(attempt)
                    continue
                }
                throw error
            }
        }
    }

    private func pause(_ attempt: Int) {
        let milliseconds = backoffMilliseconds << min(attempt - 1, 10)
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }

    private func post(_ receiptData: String, to address: String) -> Result<[UInt8], Failure> {
        guard let url = URL(string: address) else { return .failure(.transport("invalid URL \(address)")) }
        var writer = JSONWriter(capacity: receiptData.utf8.count + 128)
        writer.beginObject()
        writer.field("receipt-data", receiptData)
        writer.field("password", password)
        writer.field("exclude-old-transactions", false)
        writer.endObject()
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(writer.bytes)
        let result = Mutex<Result<[UInt8], Failure>>(.failure(.transport("no answer")))
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            let outcome: Result<[UInt8], Failure>
            if let error {
                outcome = .failure(.transport(error.localizedDescription))
            } else if let http = response as? HTTPURLResponse, http.statusCode >= 500 {
                outcome = .failure(.transport("HTTP \(http.statusCode)"))
            } else {
                outcome = .success([UInt8](data ?? Data()))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }
}
