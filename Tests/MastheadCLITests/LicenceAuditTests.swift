import Foundation
import Masthead
import MastheadJSON
import MastheadStorage
import Testing

/// `masthead audit --database` reads licence memberships and gift grants as the service answers
/// them: a member's line has the licence's span.
struct LicenceAuditTests {
    @Test func auditOfTheDatabase_includesLicenceMembers_andGiftRedeemers() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("masthead.sqlite").path
        let store = try SQLiteStore(path: path)
        let start = CivilTime(year: 2020, month: 1, day: 1).instant
        let joined = CivilTime(year: 2020, month: 3, day: 15).instant
        let licence = Licence(licenceId: "uni", publications: ["the-monthly"], access: .archive, start: start, end: nil, seats: 5)
        _ = try store.inTransaction { () throws(StorageError) in try store.putLicence(licence, now: start) }
        _ = try store.inTransaction { () throws(StorageError) in try store.joinLicence("uni", userId: "lena", now: joined) }
        let offer = GiftOffer(publications: ["the-monthly"], access: .archive, duration: CalendarDuration(months: 6), redeemBy: joined.adding(milliseconds: 86_400_000))
        _ = try store.inTransaction { () throws(StorageError) in try store.createGiftCodes(hashes: [[1]], offer: offer, now: start) }
        _ = try store.inTransaction { () throws(StorageError) in try store.redeemGiftCode(hash: [1], userId: "gus", now: joined) }
        let outcome = try AuditDatabaseTests.audit(["--database", path], at: "2020-07-02T00:00:00Z")
        #expect(outcome.status == 0, "\(outcome.errors)")
        let lines = try outcome.output.split(separator: "\n").map { try JSONDocument(parsing: String($0)).root }
        let users = lines.compactMap { $0["user_id"]?.string ?? $0["userId"]?.string }
        #expect(users == ["gus", "lena"], "\(outcome.output)")
        for line in lines {
            #expect(line["status"]?.string == "active" || line["status"]?["state"]?.string == "active", "\(outcome.output)")
        }
    }
}
