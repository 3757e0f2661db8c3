import Foundation
import Glibc
import MastheadStorage
import MastheadTestSupport
import Testing

/// `masthead serve --database postgresql://…`: the service on PostgreSQL, as an operator runs it.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLServeTests {
    static let check = "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z"

    @Test func live_onPostgreSQL_acceptsAReceipt_answersTheCheck_andKeepsItAcrossARestart() throws {
        let database = try TestPostgreSQL.freshDatabase()
        let receipt = try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"))
        do {
            let server = try ServerProcess(database: database)
            let client = try TestClient(port: server.port)
            #expect(client.request("POST", "/v1/users/alice/receipts", headers: ["Authorization": "Bearer api-token"], body: [UInt8](receipt))?.status == 200)
            #expect(client.request("GET", Self.check, headers: ["Authorization": "Bearer api-token"])?.body.contains(#""readable":true"#) == true)
            let stopped = server.stop(signal: SIGTERM)
            #expect(stopped.status == 0, "\(stopped.errors)")
        }
        // The data is in PostgreSQL, not in a file.
        #expect(try PostgreSQLStore(url: database, readOnly: true).userExists("alice"))
        let restarted = try ServerProcess(database: database)
        let client = try TestClient(port: restarted.port)
        #expect(client.request("GET", Self.check, headers: ["Authorization": "Bearer api-token"])?.body.contains(#""readable":true"#) == true)
        #expect(restarted.stop(signal: SIGTERM).status == 0)
    }

    /// A database that cannot be reached stops start-up with an error naming it, never its password.
    @Test func unreachableDatabase_isNamedWithoutItsPassword() throws {
        let outcome = try Tool.run(
            ["serve", "--port", "0", "--database", "postgresql://ana:s3cret@%2Fnonexistent:5999/masthead"], environment: ServerProcess.environment)
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("postgresql://ana@%2Fnonexistent:5999/masthead"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("s3cret"))
    }
}
