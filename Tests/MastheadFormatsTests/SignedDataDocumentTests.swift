import Foundation
import MastheadFormats
import Testing

/// The two shapes of signed documents, told apart from receipts and version 1 notifications.
struct SignedDataDocumentTests {
    static func read(_ json: String) throws(FormatError) -> SignedDataDocument? { try SignedDataDocument.read(Array(json.utf8)) }

    @Test func shapes_areRead() throws {
        #expect(try Self.read(#"{"signedPayload": "a.b.c"}"#) == .notification(signedPayload: "a.b.c"))
        #expect(
            try Self.read(#"{"signedTransactions": ["a.b.c", "d.e.f"], "signedRenewalInfos": ["g.h.i"]}"#)
                == .transactions(signedTransactions: ["a.b.c", "d.e.f"], signedRenewalInfos: ["g.h.i"]))
        #expect(try Self.read(#"{"signedTransactions": []}"#) == .transactions(signedTransactions: [], signedRenewalInfos: []))
        #expect(try Self.read(#"{"signedRenewalInfos": ["g"]}"#)?.tokens == ["g"])
    }

    @Test func otherDocuments_areNotSignedData() throws {
        #expect(try Self.read(#"{"status": 0, "receipt": {}}"#) == nil)
        #expect(try Self.read("[]") == nil)
        for name in Fixtures.appStoreFiles("verify-receipt") {
            #expect(try SignedDataDocument.read(Fixtures.appStoreBytes("verify-receipt", name)) == nil)
        }
        for name in Fixtures.appStoreFiles("notification-v1") {
            #expect(try SignedDataDocument.read(Fixtures.appStoreBytes("notification-v1", name)) == nil)
        }
    }

    @Test func recordedV2Bodies_holdTheirToken() throws {
        let body = try SignedDataDocument.read(
            Fixtures.appStoreBytes("notification-v2", "apple-app-store-server-library-swift--signed-test-notification-testca.json"))
        let token = String(decoding: try Fixtures.bytes(Fixtures.appStoreV2.appendingPathComponent("mock_signed_data/testNotification")), as: UTF8.self)
        #expect(body == .notification(signedPayload: token.trimmingCharacters(in: .whitespacesAndNewlines)))
        for name in Fixtures.appStoreFiles("notification-v2/malformed") {
            guard case .notification = try SignedDataDocument.read(Fixtures.appStoreBytes("notification-v2/malformed", name)) else {
                Issue.record("\(name) is not read as a signedPayload body")
                continue
            }
        }
    }

    @Test func members_ofTheWrongShape_areErrorsWithPaths() {
        #expect(throws: FormatError.invalidValue(path: "$.signedPayload", line: 1, value: "12", expected: "a signed token (a non-empty string)")) {
            try Self.read(#"{"signedPayload": 12}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.signedPayload", line: 1, value: "null", expected: "a signed token (a non-empty string)")) {
            try Self.read(#"{"signedPayload": null}"#)
        }
        #expect(
            throws: FormatError.invalidValue(path: "$.signedTransactions[1]", line: 3, value: "\"\"", expected: "a signed token (a non-empty string)")
        ) { try Self.read("{\"signedTransactions\": [\n\"a.b.c\",\n\"\"]}") }
        #expect(throws: FormatError.invalidValue(path: "$.signedRenewalInfos", line: 1, value: "\"a.b.c\"", expected: "an array of signed tokens")) {
            try Self.read(#"{"signedTransactions": [], "signedRenewalInfos": "a.b.c"}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.signedTransactions", line: 1, value: "an array", expected: "nothing beside signedPayload")) {
            try Self.read(#"{"signedPayload": "a.b.c", "signedTransactions": []}"#)
        }
    }
}
