import Foundation
import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization

/// A service on a fresh temporary database with a settable clock, called in process.
final class ServiceHarness: Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let path: String
    let clock: ClockBox
    let service: EntitlementService
    let router: ServiceRouter

    /// - Parameters:
    ///   - backend: the store of a new database (SQLite when not given).
    ///   - path: an existing database (a SQLite file or a PostgreSQL URL) instead.
    init(
        backend: StoreBackend = .sqlite, path: String? = nil, restore: String = "transfer", now: String = "2020-07-02T00:00:00Z",
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws {
        ignoreBrokenPipes()
        self.path = try path ?? backend.freshDatabase(prefix: "masthead-service")
        var configuration = ServiceConfiguration()
        configuration.databasePath = self.path
        configuration.apiToken = "api-token"
        configuration.adminToken = "admin-token"
        configuration.sharedSecret = "shared-secret"
        configuration.restore = .init(rawValue: restore)!
        configure(&configuration)
        let clock = ClockBox(DateText.rfc3339(now)!)
        self.clock = clock
        let catalog = try CatalogDecoder().decode([UInt8](try Data(contentsOf: ServiceHarness.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))))
        service = try EntitlementService(configuration: configuration, catalog: catalog, clock: { clock.read() })
        router = ServiceRouter(service: service)
    }

    /// Closes the service; `remove` deletes the database too.
    func close(remove: Bool = true) {
        service.close()
        if remove { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    }

    func setNow(_ text: String) { clock.value.withLock { $0 = DateText.rfc3339(text)! } }

    struct Answer {
        var status: Int
        var body: String
        var json: JSONValue? { try? JSONDocument(parsing: body).root }
    }

    /// Sends a request through the router and waits for the answer.
    func call(_ method: String, _ target: String, token: String? = "api-token", body: [UInt8] = []) -> Answer {
        call(method, target, authorization: token.map { "Bearer \($0)" }, body: body)
    }

    /// Sends a request with the `Authorization` field as given (none when nil).
    func call(_ method: String, _ target: String, authorization: String?, body: [UInt8] = []) -> Answer {
        let headers = authorization.map { [("Authorization", $0)] } ?? []
        let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
        let result = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        router.handle(request) { response in
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        let response = result.withLock { $0! }
        return Answer(status: response.status, body: String(decoding: response.body, as: UTF8.self))
    }

    func call(_ method: String, _ target: String, token: String? = "api-token", json: String) -> Answer {
        call(method, target, token: token, body: Array(json.utf8))
    }

    /// A shipped example receipt, as bytes.
    static func example(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("Catalog/the-monthly/receipts/\(name).json")))
    }
}

/// The clock value shared with the service's clock closure.
final class ClockBox: Sendable {
    let value: Mutex<Instant>
    init(_ instant: Instant) { value = Mutex(instant) }
    func read() -> Instant { value.withLock { $0 } }
}
