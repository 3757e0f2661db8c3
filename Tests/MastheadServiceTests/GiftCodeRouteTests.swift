import Dispatch
import Foundation
import Masthead
import MastheadCrypto
import MastheadHTTP
import MastheadJSON
@testable import MastheadService
import MastheadPostgreSQL
import MastheadSQLite
import MastheadTestSupport
import Synchronization
import Testing

/// `POST /v1/gift-codes` and `POST /v1/users/{userId}/gift-codes/redeem`: codes answered once and
/// stored as hashes, each redeemed once (also from threads and instances at once), gifts
/// extended, expired codes refused, attempts limited per user.
struct GiftCodeRouteTests {
    static let batch = #"{"count": 3, "publications": ["the-monthly"], "access": "archive", "duration": "P1Y", "redeemBy": "2020-12-31T00:00:00Z"}"#

    /// Makes codes with the admin token; answers them as given.
    static func codes(_ harness: ServiceHarness, _ body: String = batch) throws -> [String] {
        let answer = harness.call("POST", "/v1/gift-codes", token: "admin-token", json: body)
        #expect(answer.status == 200, "\(answer.body)")
        let codes = try #require(answer.json?["codes"])
        return codes.elements.compactMap { $0["code"]?.string }
    }

    static func redeem(_ harness: ServiceHarness, _ user: String, _ code: String) -> ServiceHarness.Answer {
        harness.call("POST", "/v1/users/\(user)/gift-codes/redeem", json: #"{"code": "\#(code)"}"#)
    }

    @Test func codes_areGroupedCrockfordBase32_andOnlyTheAdminMakesThem() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/gift-codes", json: Self.batch).status == 403)
        let codes = try Self.codes(harness)
        #expect(codes.count == 3 && Set(codes).count == 3)
        for code in codes {
            #expect(code.count == 19)
            #expect(code.split(separator: "-").map(\.count) == [4, 4, 4, 4])
            #expect(code.allSatisfy { $0 == "-" || "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) }, "\(code)")
        }
    }

    @Test func redeem_makesTheEntitlementReadable_once_typedAnyCaseWithoutDashes() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let code = try #require(try Self.codes(harness).first)
        #expect(ServiceRouterTests.readable(harness, "gina", "2020-07", at: "2020-07-02T00:00:00Z") == false)
        let typed = code.replacing("-", with: "").lowercased()
        let redeemed = Self.redeem(harness, "gina", typed)
        #expect(redeemed.status == 200, "\(redeemed.body)")
        let grantId = try #require(redeemed.json?["grantId"]?.string)
        #expect(grantId.hasPrefix("gift:") && !grantId.contains(code) && !grantId.contains(typed))
        #expect(redeemed.json?["source"]?.string == "gift")
        #expect(redeemed.json?["start"]?.string == "2020-07-02T00:00:00Z")
        #expect(redeemed.json?["end"]?.string == "2021-07-02T00:00:00Z")
        #expect(ServiceRouterTests.readable(harness, "gina", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        let again = Self.redeem(harness, "gina", code)
        #expect(again.status == 409)
        #expect(again.json?["error"]?["code"]?.string == "gift_code_redeemed")
        #expect(Self.redeem(harness, "hugo", code).status == 409)
    }

    @Test func unknown_malformed_andExpiredCodes_areRefused() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let code = try #require(try Self.codes(harness).first)
        for wrong in ["0000-0000-0000-0000", "not a code", "", String(code.dropLast())] {
            let answer = Self.redeem(harness, "user-\(wrong.count)", wrong)
            #expect(answer.status == 404, "\(wrong)")
            #expect(answer.json?["error"]?["code"]?.string == "unknown_gift_code")
        }
        harness.setNow("2020-12-31T00:00:00Z")
        let late = Self.redeem(harness, "gina", code)
        #expect(late.status == 410)
        #expect(late.json?["error"]?["code"]?.string == "gift_code_expired")
        #expect(harness.call("POST", "/v1/users/gina/gift-codes/redeem", json: #"{"code": 1}"#).status == 400)
    }

    @Test func batch_isRefused_namingTheMember() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let cases: [(String, String)] = [
            (#"{"count": 0, "publications": ["the-monthly"], "access": "archive", "duration": "P1Y", "redeemBy": "2021-01-01"}"#, "$.count"),
            (#"{"count": 10001, "publications": ["the-monthly"], "access": "archive", "duration": "P1Y", "redeemBy": "2021-01-01"}"#, "$.count"),
            (#"{"count": 1, "publications": ["the-weekly"], "access": "archive", "duration": "P1Y", "redeemBy": "2021-01-01"}"#, "$.publications[0]"),
            (#"{"count": 1, "publications": ["the-monthly"], "access": "print", "duration": "P1Y", "redeemBy": "2021-01-01"}"#, "$.access"),
            (#"{"count": 1, "publications": ["the-monthly"], "access": "archive", "duration": "P1H", "redeemBy": "2021-01-01"}"#, "$.duration"),
            (#"{"count": 1, "publications": ["the-monthly"], "access": "archive", "duration": "P1Y", "redeemBy": "2020-01-01"}"#, "$.redeemBy"),
            (#"{"count": 1, "publications": ["the-monthly"], "access": "archive", "duration": "P1Y", "redeemBy": "2021-01-01", "x": 1}"#, "$.x"),
        ]
        for (body, path) in cases {
            let answer = harness.call("POST", "/v1/gift-codes", token: "admin-token", json: body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.json?["error"]?["code"]?.string == "invalid_gift_codes")
            #expect(answer.json?["error"]?["message"]?.string?.contains(path) == true, "\(answer.body)")
        }
    }

    /// A second code redeemed while the first gift runs starts at its end.
    @Test func redeem_duringAGift_extendsIt() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let codes = try Self.codes(harness)
        #expect(Self.redeem(harness, "gina", codes[0]).status == 200)
        harness.setNow("2020-09-01T00:00:00Z")
        let second = Self.redeem(harness, "gina", codes[1])
        #expect(second.json?["start"]?.string == "2021-07-02T00:00:00Z")
        #expect(second.json?["end"]?.string == "2022-07-02T00:00:00Z")
        let entitlements = harness.call("GET", "/v1/users/gina/entitlements?at=2022-01-01T00:00:00Z")
        let publications = try #require(entitlements.json?["publications"])
        let publication = try #require(Array(publications.elements).first)
        #expect(publication["status"]?["state"]?.string == "active", "\(entitlements.body)")
        // One period: the second gift starts where the first ends.
        #expect(publication["periods"]?.count == 1)
    }

    @Test func database_keepsTheHash_neverTheCode() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let codes = try Self.codes(harness)
        #expect(Self.redeem(harness, "gina", codes[0]).status == 200)
        let database = try Database(path: harness.path)
        let columns: Int32 = 9
        let dump = try database.prepare(
            """
            SELECT id, code_hash, publications, access, duration, redeem_by_ms, created_ms, redeemed_by, redeemed_ms
            FROM gift_codes
            """
        ).rows([]) { row throws(SQLiteError) in
            var texts: [String] = []
            for index in 0..<columns {
                switch try row.value(index) {
                case .text(let text): texts.append(text)
                case .blob(let bytes): texts.append(String(decoding: bytes, as: UTF8.self))
                case let other: texts.append("\(other)")
                }
            }
            return texts.joined(separator: "|")
        }.joined(separator: "\n")
        #expect(dump.count > 0)
        for code in codes {
            let bare = code.replacing("-", with: "")
            #expect(!dump.contains(bare) && !dump.contains(code) && !dump.lowercased().contains(bare.lowercased()))
            let hash = try SHA256.digest(Array(bare.utf8))
            #expect(try database.prepare("SELECT count(*) FROM gift_codes WHERE code_hash = ?").singleRow([.blob(hash)]) { row throws(SQLiteError) in try row.integer(0) } == 1)
        }
    }

    /// Codes appear in no log: the access log has the path alone, and the body is never logged.
    @Test func codes_areNeverInTheAccessLog() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-gift-log-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let log = try AccessLog(destination: logPath)
        let router = ServiceRouter(service: harness.service, accessLog: log)
        func call(_ target: String, token: String, _ body: String) -> HTTPResponse {
            let result = Mutex<HTTPResponse?>(nil)
            let done = DispatchSemaphore(value: 0)
            router.handle(HTTPRequest(method: "POST", target: target, headers: [("Authorization", "Bearer \(token)")], body: Array(body.utf8))) {
                response in
                result.withLock { $0 = response }
                done.signal()
            }
            done.wait()
            return result.withLock { $0! }
        }
        let made = call("/v1/gift-codes", token: "admin-token", Self.batch)
        let codes = try JSONDocument(parsing: made.body).root["codes"]!.elements.compactMap { $0["code"]?.string }
        #expect(codes.count == 3)
        #expect(call("/v1/users/gina/gift-codes/redeem", token: "api-token", #"{"code": "\#(codes[0])"}"#).status == 200)
        #expect(call("/v1/users/gina/gift-codes/redeem", token: "api-token", #"{"code": "\#(codes[0])"}"#).status == 409)
        log.close()
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(text.contains("/v1/users/gina/gift-codes/redeem"))
        for code in codes { #expect(!text.contains(code) && !text.contains(code.replacing("-", with: ""))) }
    }

    @Test func attempts_areLimitedPerUser_withRetryAfter() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for attempt in 1...5 { #expect(Self.redeem(harness, "mallory", "0000-0000-0000-000\(attempt)").status == 404) }
        let code = try #require(try Self.codes(harness).first)
        let limited = Self.redeem(harness, "mallory", code)
        #expect(limited.status == 429)
        #expect(limited.json?["error"]?["code"]?.string == "too_many_attempts")
        let response = GiftCodeRouteTests.response(harness, "mallory", code)
        #expect(response.headers.contains { $0.name == "Retry-After" && $0.value == "60" })
        // Another user is not limited; the limited one may try again once the minute has passed.
        #expect(Self.redeem(harness, "gina", "0000-0000-0000-0000").status == 404)
        harness.setNow("2020-07-02T00:01:00.001Z")
        #expect(Self.redeem(harness, "mallory", code).status == 200)
    }

    /// The limiter tracks a bounded number of users: past it, newcomers wait until some age out.
    @Test func limiter_tracksABoundedNumberOfUsers_refusingNewcomersUntilSomeAgeOut() {
        let limiter = RedemptionLimiter(attempts: 5, window: 60_000, maxUsers: 2)
        let now = Instant(milliseconds: 1_000_000)
        #expect(limiter.admit("a", now: now) == nil)
        #expect(limiter.admit("b", now: now) == nil)
        #expect(limiter.admit("c", now: now) == 60)
        #expect(limiter.admit("a", now: now) == nil)
        #expect(limiter.trackedUsers == 2)
        #expect(limiter.admit("c", now: now.adding(milliseconds: 60_000)) == nil)
        #expect(limiter.trackedUsers == 1)
    }

    static func response(_ harness: ServiceHarness, _ user: String, _ code: String) -> HTTPResponse {
        let result = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let request = HTTPRequest(
            method: "POST", target: "/v1/users/\(user)/gift-codes/redeem", headers: [("Authorization", "Bearer api-token")],
            body: Array(#"{"code": "\#(code)"}"#.utf8))
        harness.router.handle(request) { response in
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Redeems one code for `users` from as many threads at once, spread over `harnesses`;
    /// answers the statuses.
    static func redeemAtOnce(_ harnesses: [ServiceHarness], code: String, users: Int) -> [Int] {
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: users) { index in
            let status = redeem(harnesses[index % harnesses.count], "racer-\(index)", code).status
            statuses.withLock { $0.append(status) }
        }
        return statuses.withLock { $0 }.sorted()
    }

    @Test func concurrentRedeems_onOneInstance_giveExactlyOneGrant() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let code = try #require(try Self.codes(harness).first)
        let statuses = Self.redeemAtOnce([harness], code: code, users: 8)
        #expect(statuses == [200] + Array(repeating: 409, count: 7))
        let database = try Database(path: harness.path)
        #expect(try database.scalar("SELECT count(*) FROM gift_codes WHERE redeemed_by IS NOT NULL") == .integer(1))
    }

    @Test(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
    func concurrentRedeems_onTwoInstancesOfOnePostgreSQLDatabase_giveExactlyOneGrant() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        let codes = try Self.codes(first)
        for code in codes {
            #expect(Self.redeemAtOnce([first, second], code: code, users: 8) == [200] + Array(repeating: 409, count: 7))
        }
        let connection = try PostgreSQLConnection(first.path)
        #expect(try connection.scalar("SELECT count(*) FROM gift_codes WHERE redeemed_by IS NOT NULL") == .integer(Int64(codes.count)))
    }
}
