import MastheadHTTP

/// A stand-in for Apple's verifyReceipt on loopback that renews subscription `p1`: whatever it is
/// asked, it answers a receipt whose first month ends a day after `now` and whose renewal `p2`
/// runs a month past that.
enum FakeApple {
    static let day: Int64 = 86_400_000

    /// A transaction of subscription `p1` from `from` to `to` (milliseconds).
    static func transaction(_ id: String, _ from: Int64, _ to: Int64) -> String {
        #"{"transaction_id": "\#(id)", "original_transaction_id": "p1", "product_id": "com.example.monthly", "purchase_date_ms": "\#(from)", "expires_date_ms": "\#(to)"}"#
    }

    /// The month of `p1` that ends a day after `now`: what the reader's own receipt holds.
    static func firstMonth(now: Int64) -> String { transaction("p1", now - 29 * day, now + day) }

    /// Starts the server on a free port; stop it with `stop(gracePeriodMilliseconds:)` and `waitUntilStopped()`.
    static func start(now: Int64) throws -> HTTPServer {
        let first = firstMonth(now: now)
        let renewed = #"{"status": 0, "environment": "Production", "latest_receipt": "NEW", "latest_receipt_info": [\#(first), \#(transaction("p2", now + day - 60_000, now + 31 * day))]}"#
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let server = try HTTPServer(configuration: configuration) { _, responder in responder.send(.json(200, Array(renewed.utf8))) }
        try server.start()
        return server
    }
}
