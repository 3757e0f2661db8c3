import Masthead
import MastheadFormats
import MastheadJSON
import Testing

/// Signed app transactions (Apple's `AppTransaction`) as Apple's models type them, and the app
/// and environment they must be for.
struct AppTransactionPayloadTests {
    static func payload(_ json: String) throws(FormatError) -> JWSAppTransactionDecodedPayload {
        try JWSAppTransactionDecodedPayload(decoding: Array(json.utf8))
    }

    @Test func wrongJSONType_namesPathLineAndValue() {
        #expect(throws: FormatError.invalidValue(path: "$.versionExternalIdentifier", line: 1, value: "\"871234\"", expected: "an integer")) {
            try Self.payload(#"{"versionExternalIdentifier": "871234"}"#)
        }
        #expect(
            throws: FormatError.invalidValue(
                path: "$.originalPurchaseDate", line: 1, value: "\"2020-02-01\"", expected: "milliseconds since 1970 (an integer, up to 9999-12-31)")
        ) { try Self.payload(#"{"originalPurchaseDate": "2020-02-01"}"#) }
        #expect(throws: FormatError.invalidValue(path: "$.deviceVerificationNonce", line: 1, value: "\"nonce\"", expected: "a UUID")) {
            try Self.payload(#"{"deviceVerificationNonce": "nonce"}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$", line: 1, value: "an array", expected: "a signed app transaction payload object")) {
            try Self.payload("[]")
        }
    }

    @Test func unknownValues_areKept_unknownMembers_ignored_nullIsAbsent() throws {
        let payload = try Self.payload(#"{"receiptType": "Xcode", "originalPlatform": "watchOS", "preorderDate": null, "futureField": [1, 2]}"#)
        #expect(payload.receiptType == .xcode)
        #expect(payload.originalPlatform == "watchOS")
        #expect(payload.preorderDate == nil)
    }

    @Test func appIdentity_checksBundle_appAppleIdForProduction_andReceiptType() throws {
        let identity = AppIdentity(bundleId: "com.example", appAppleId: 1234, environments: [.production, .sandbox])
        try identity.check(try Self.payload(#"{"bundleId": "com.example", "appAppleId": 1234, "receiptType": "Production"}"#))
        // Sandbox data usually carries no App Apple ID, and is not judged by it.
        try identity.check(try Self.payload(#"{"bundleId": "com.example", "receiptType": "Sandbox"}"#))
        #expect(throws: FormatError.wrongBundleId(path: "$.bundleId", expected: "com.example", found: "com.other")) {
            try identity.check(try Self.payload(#"{"bundleId": "com.other", "appAppleId": 1234, "receiptType": "Production"}"#))
        }
        #expect(throws: FormatError.wrongAppAppleId(path: "$.appAppleId", expected: 1234, found: 1235)) {
            try identity.check(try Self.payload(#"{"bundleId": "com.example", "appAppleId": 1235, "receiptType": "Production"}"#))
        }
        #expect(throws: FormatError.environmentNotAccepted(path: "$.receiptType", found: "Xcode", accepted: ["Production", "Sandbox"])) {
            try identity.check(try Self.payload(#"{"bundleId": "com.example", "appAppleId": 1234, "receiptType": "Xcode"}"#))
        }
        #expect(throws: FormatError.environmentNotAccepted(path: "$.receiptType", found: nil, accepted: ["Production", "Sandbox"])) {
            try identity.check(try Self.payload(#"{"bundleId": "com.example", "appAppleId": 1234}"#))
        }
    }

    @Test func appTransactionInfoResponse_readsItsToken_andRefusesAnotherType() throws {
        #expect(try AppTransactionInfoResponse(decoding: Array(#"{"signedAppTransactionInfo": "a.b.c"}"#.utf8)).signedAppTransactionInfo == "a.b.c")
        #expect(throws: FormatError.invalidValue(path: "$.signedAppTransactionInfo", line: 1, value: "7", expected: "a string")) {
            try AppTransactionInfoResponse(decoding: Array(#"{"signedAppTransactionInfo": 7}"#.utf8))
        }
    }
}
