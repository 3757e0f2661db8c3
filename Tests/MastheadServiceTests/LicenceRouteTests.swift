import Dispatch
import Foundation
import MastheadJSON
import MastheadPostgreSQL
import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// The licence routes: a licence and its seats, members joining and leaving, each membership's
/// span read with the member's answers, every member's answers changed with the licence.
struct LicenceRouteTests {
    static let licence = #"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "end": "2021-01-01", "seats": 2}"#

    static func put(_ harness: ServiceHarness, _ body: String = licence, id: String = "uni") -> ServiceHarness.Answer {
        harness.call("PUT", "/v1/licences/\(id)", token: "admin-token", json: body)
    }

    static func join(_ harness: ServiceHarness, _ user: String, licence: String = "uni") -> ServiceHarness.Answer {
        harness.call("PUT", "/v1/licences/\(licence)/members/\(user)", token: "admin-token", body: [])
    }

    static func leave(_ harness: ServiceHarness, _ user: String) -> ServiceHarness.Answer {
        harness.call("DELETE", "/v1/licences/uni/members/\(user)", token: "admin-token", body: [])
    }

    @Test func licence_isStored_andReadWithItsMemberCount_withTheAdminTokenOnly() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/v1/licences/uni", token: "admin-token").status == 404)
        #expect(harness.call("PUT", "/v1/licences/uni", json: Self.licence).status == 403)
        let put = Self.put(harness)
        #expect(put.status == 200, "\(put.body)")
        #expect(put.json?["members"]?.int64 == 0)
        #expect(Self.join(harness, "ana").status == 200)
        let read = harness.call("GET", "/v1/licences/uni", token: "admin-token")
        #expect(read.json?["seats"]?.int64 == 2)
        #expect(read.json?["members"]?.int64 == 1)
        // A date alone as the end includes that day.
        #expect(read.json?["end"]?.string == "2021-01-02T00:00:00Z")
        #expect(harness.call("GET", "/v1/licences/uni", token: "api-token").status == 403)
    }

    @Test func member_readsWhileAMember_andKeepsWhatWasPublishedThen() throws {
        let harness = try ServiceHarness(now: "2020-03-15T00:00:00Z")
        defer { harness.close() }
        #expect(Self.put(harness).status == 200)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-03", at: "2020-03-15T00:00:00Z") == false)
        let joined = Self.join(harness, "ana")
        #expect(joined.json?["grantId"]?.string == "licence:uni")
        #expect(joined.json?["number"]?.int64 == 1)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-03", at: "2020-03-15T00:00:00Z") == true)
        // A second PUT changes nothing.
        #expect(Self.join(harness, "ana").json?["joined"]?.string == "2020-03-15T00:00:00Z")
        harness.setNow("2020-05-10T00:00:00Z")
        let left = Self.leave(harness, "ana")
        #expect(left.status == 200)
        #expect(left.json?["left"]?.string == "2020-05-10T00:00:00Z")
        // Archive access keeps the issues published while a member, not the later ones.
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-05", at: "2020-06-15T00:00:00Z") == true)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-06", at: "2020-06-15T00:00:00Z") == false)
        harness.setNow("2020-08-10T00:00:00Z")
        let again = Self.join(harness, "ana")
        #expect(again.json?["grantId"]?.string == "licence:uni#2")
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-06", at: "2020-08-15T00:00:00Z") == false)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-09", at: "2020-09-15T00:00:00Z") == true)
        let members = harness.call("GET", "/v1/licences/uni/members", token: "admin-token")
        #expect(members.json?["members"]?.elements.map { $0["number"]?.int64 } == [1, 2])
        #expect(Self.leave(harness, "bo").json?["error"]?["code"]?.string == "not_a_licence_member")
    }

    @Test func seats_areNeverOversold_andLeavingFreesOne() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(Self.put(harness).status == 200)
        #expect(Self.join(harness, "ana").status == 200)
        #expect(Self.join(harness, "bo").status == 200)
        let full = Self.join(harness, "cy")
        #expect(full.status == 409)
        #expect(full.json?["error"]?["code"]?.string == "licence_full")
        #expect(Self.leave(harness, "bo").status == 200)
        #expect(Self.join(harness, "cy").status == 200)
        #expect(Self.join(harness, "dee", licence: "nowhere").json?["error"]?["code"]?.string == "unknown_licence")
    }

    @Test func changingTheLicence_changesEveryMembersAnswer_atOnce() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(Self.put(harness).status == 200)
        #expect(Self.join(harness, "ana").status == 200)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        let ended = #"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "end": "2020-06-01", "seats": 2}"#
        #expect(Self.put(harness, ended).status == 200)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-07", at: "2020-07-02T00:00:00Z") == false)
        let joinEnded = Self.join(harness, "bo")
        #expect(joinEnded.status == 409)
        #expect(joinEnded.json?["error"]?["code"]?.string == "licence_ended")
    }

    /// Two services on one database: a licence changed and a member leaving through one change
    /// the other's cached answers at once (the change log names every member).
    @Test func licenceChangedThroughOneService_changesTheOthersCachedAnswers() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(Self.put(first).status == 200)
        #expect(Self.join(first, "ana").status == 200)
        #expect(Self.join(first, "bo").status == 200)
        #expect(ServiceRouterTests.readable(second, "ana", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        #expect(ServiceRouterTests.readable(second, "bo", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        let streaming = #"{"publications": ["the-monthly"], "access": "streaming", "start": "2020-01-01", "end": "2020-07-01", "seats": 2}"#
        #expect(Self.put(first, streaming).status == 200)
        #expect(ServiceRouterTests.readable(second, "ana", "2020-07", at: "2020-07-02T00:00:00Z") == false)
        #expect(ServiceRouterTests.readable(second, "bo", "2020-07", at: "2020-07-02T00:00:00Z") == false)
        #expect(Self.put(first).status == 200)
        #expect(ServiceRouterTests.readable(second, "bo", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        #expect(Self.leave(first, "bo").status == 200)
        #expect(ServiceRouterTests.readable(second, "bo", "2020-08", at: "2020-08-02T00:00:00Z") == false)
    }

    @Test func licence_isRefused_namingTheMember_andTheIdIsChecked() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let cases: [(String, String)] = [
            (#"{"publications": [], "access": "archive", "start": "2020-01-01", "seats": 2}"#, "$.publications"),
            (#"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "end": "2019-01-01", "seats": 2}"#, "$.end"),
            (#"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "seats": 0}"#, "$.seats"),
            (#"{"publications": ["the-monthly"], "access": "archive", "start": "someday", "seats": 1}"#, "$.start"),
            (#"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "seats": 1, "owner": "x"}"#, "$.owner"),
        ]
        for (body, path) in cases {
            let answer = Self.put(harness, body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.json?["error"]?["code"]?.string == "invalid_licence")
            #expect(answer.json?["error"]?["message"]?.string?.contains(path) == true, "\(answer.body)")
        }
        let open = #"{"publications": ["the-monthly"], "access": "streaming", "start": "2020-01-01", "end": null, "seats": 1}"#
        #expect(Self.put(harness, open).json?["end"]?.isNull == true)
        let badId = Self.put(harness, open, id: "uni%23two")
        #expect(badId.status == 400)
        #expect(badId.json?["error"]?["code"]?.string == "invalid_licence_id")
    }

    @Test(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
    func joinsThroughTwoInstancesOfOnePostgreSQLDatabase_neverOversell() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        let threeSeats = #"{"publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "seats": 3}"#
        #expect(Self.put(first, threeSeats).status == 200)
        let statuses = Mutex<[Int]>([])
        let harnesses = [first, second]
        DispatchQueue.concurrentPerform(iterations: 10) { index in
            let status = Self.join(harnesses[index % 2], "member-\(index)").status
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 }.sorted() == [200, 200, 200] + Array(repeating: 409, count: 7))
        #expect(second.call("GET", "/v1/licences/uni", token: "admin-token").json?["members"]?.int64 == 3)
        let connection = try PostgreSQLConnection(first.path)
        #expect(try connection.scalar("SELECT count(*) FROM licence_members WHERE left_ms IS NULL") == .integer(3))
    }
}
