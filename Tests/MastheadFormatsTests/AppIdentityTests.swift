import Masthead
import MastheadFormats
import Testing

/// The app checks on verified payloads, with the expected outcomes of
/// `Tests/Fixtures/appstore-v2/README.md` (R14).
struct AppIdentityTests {
    static func notification(_ name: String) throws -> ResponseBodyV2DecodedPayload {
        try ResponseBodyV2DecodedPayload(decoding: Fixtures.mockPayload(name))
    }

    @Test func testNotification_validForSandbox_comExample_1234() throws {
        try AppIdentity(bundleId: "com.example", appAppleId: 1234, environments: [.sandbox]).check(Self.notification("testNotification"))
        // Sandbox notifications are not judged by their appAppleId.
        try AppIdentity(bundleId: "com.example", appAppleId: 1235, environments: [.sandbox]).check(Self.notification("testNotification"))
    }

    @Test func testNotification_refusedForAnotherBundle() throws {
        let identity = AppIdentity(bundleId: "com.examplex", appAppleId: 1234, environments: [.sandbox])
        #expect(throws: FormatError.wrongBundleId(path: "$.data.bundleId", expected: "com.examplex", found: "com.example")) {
            try identity.check(Self.notification("testNotification"))
        }
    }

    @Test func testNotification_refusedForAppAppleId1235_whenProduction() throws {
        let identity = AppIdentity(bundleId: "com.example", appAppleId: 1235, environments: [.production])
        #expect(throws: FormatError.wrongAppAppleId(path: "$.data.appAppleId", expected: 1235, found: 1234)) {
            try identity.check(Self.notification("testNotification"))
        }
    }

    @Test func testNotification_refusedForProductionEnvironment() throws {
        let identity = AppIdentity(bundleId: "com.example", appAppleId: 1234, environments: [.production])
        #expect(throws: FormatError.environmentNotAccepted(path: "$.data.environment", found: "Sandbox", accepted: ["Production"])) {
            try identity.check(Self.notification("testNotification"))
        }
    }

    @Test func productionNotification_withAnotherAppAppleId_isRefused_whateverElseIsAccepted() throws {
        var payload = try Self.notification("testNotification")
        payload.data?.environment = .production
        let identity = AppIdentity(bundleId: "com.example", appAppleId: 1235, environments: [.production, .sandbox])
        #expect(throws: FormatError.wrongAppAppleId(path: "$.data.appAppleId", expected: 1235, found: 1234)) { try identity.check(payload) }
        payload.data?.appAppleId = 1235
        try identity.check(payload)
    }

    @Test func wrongBundleId_isRefused() throws {
        let identity = AppIdentity(bundleId: "com.example", appAppleId: 1234, environments: [.sandbox])
        #expect(throws: FormatError.wrongBundleId(path: "$.data.bundleId", expected: "com.example", found: "com.example.wrong")) {
            try identity.check(Self.notification("wrongBundleId"))
        }
    }

    @Test func transactionInfo_validForSandboxComExample_refusedOtherwise() throws {
        let payload = try JWSTransactionDecodedPayload(decoding: Fixtures.mockPayload("transactionInfo"))
        try AppIdentity(bundleId: "com.example", environments: [.sandbox]).check(payload)
        #expect(throws: FormatError.wrongBundleId(path: "$.bundleId", expected: "com.example.x", found: "com.example")) {
            try AppIdentity(bundleId: "com.example.x", environments: [.sandbox]).check(payload)
        }
        #expect(throws: FormatError.environmentNotAccepted(path: "$.environment", found: "Sandbox", accepted: ["Production"])) {
            try AppIdentity(bundleId: "com.example").check(payload)
        }
    }

    @Test func renewalInfo_validForSandbox_refusedInProduction() throws {
        let payload = try JWSRenewalInfoDecodedPayload(decoding: Fixtures.mockPayload("renewalInfo"))
        try AppIdentity(bundleId: "com.example", environments: [.sandbox]).check(payload)
        #expect(throws: FormatError.environmentNotAccepted(path: "$.environment", found: "Sandbox", accepted: ["Production"])) {
            try AppIdentity(bundleId: "com.example").check(payload)
        }
    }

    @Test func summaryExternalTokenAndAppData_identifyTheApp() throws {
        let summary = try ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedSummaryNotification.json"))
        try AppIdentity(bundleId: "com.example", appAppleId: 41234, environments: [.localTesting]).check(summary)
        #expect(throws: FormatError.environmentNotAccepted(path: "$.summary.environment", found: "LocalTesting", accepted: ["Production", "Sandbox"])) {
            try AppIdentity(bundleId: "com.example", appAppleId: 41234, environments: [.production, .sandbox]).check(summary)
        }
        var token = try ResponseBodyV2DecodedPayload(
            decoding: Fixtures.appStoreBytes("notification-v2", "apple-app-store-server-library-swift--decoded-external-purchase-token.json"))
        try AppIdentity(bundleId: "com.example", appAppleId: 55555).check(token)
        #expect(throws: FormatError.wrongAppAppleId(path: "$.externalPurchaseToken.appAppleId", expected: 1, found: 55555)) {
            try AppIdentity(bundleId: "com.example", appAppleId: 1).check(token)
        }
        token.externalPurchaseToken?.externalPurchaseId = "SANDBOX_b2158121"
        #expect(throws: FormatError.environmentNotAccepted(path: "$.externalPurchaseToken.externalPurchaseId", found: "Sandbox", accepted: ["Production"])) {
            try AppIdentity(bundleId: "com.example", appAppleId: 55555).check(token)
        }
        let rescind = try ResponseBodyV2DecodedPayload(
            decoding: Fixtures.appStoreBytes("notification-v2", "apple-app-store-server-library-swift--decoded-rescind-consent.json"))
        #expect(throws: FormatError.wrongBundleId(path: "$.appData.bundleId", expected: "com.other", found: "com.example")) {
            try AppIdentity(bundleId: "com.other", environments: [.localTesting]).check(rescind)
        }
    }

    @Test func notificationNamingNoApp_isRefused() throws {
        let empty = try ResponseBodyV2DecodedPayload(decoding: Array(#"{"notificationType": "TEST"}"#.utf8))
        #expect(throws: FormatError.wrongBundleId(path: "$.data.bundleId", expected: "com.example", found: nil)) {
            try AppIdentity(bundleId: "com.example", environments: [.sandbox]).check(empty)
        }
    }
}
