import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadTestSupport
import Synchronization
import Testing

/// Send Consumption Information (version 2) against the fake: the request's method, path, body
/// bytes and token, and Apple's refusals as clear errors.
struct ConsumptionInformationTests {
    /// The claims of a compact JWT's payload, read with Foundation.
    static func claims(_ token: String?) throws -> [String: Any] {
        let parts = try #require(token).split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let payload = try Base64.decode(String(parts[1]), .url)
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    @Test func sendConsumptionInformation_putsTheV2Body_withAValidToken() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        let request = ConsumptionRequest(
            customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false, consumptionPercentage: 33_333,
            refundPreference: .grantProrated)
        try SignedAnswers.client(fake).sendConsumptionInformation(transactionId: "t 1/2", request: request, environment: .sandbox)
        let seen = try #require(fake.seen.first)
        #expect(fake.seen.count == 1)
        #expect(seen.method == "PUT")
        #expect(seen.target == "/sandbox/inApps/v2/transactions/consumption/t%201%2F2")
        #expect(
            seen.body
                == #"{"customerConsented":true,"consumptionPercentage":33333,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","sampleContentProvided":false}"#)
        #expect(seen.refusal == nil)
        let claims = try Self.claims(seen.token)
        #expect(claims["iss"] as? String == FakeAppStoreServerAPI.issuerId)
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == SignedAnswers.bundleId)
    }

    @Test func sendConsumptionInformation_leavesOutAbsentOptionalFields() throws {
        let request = ConsumptionRequest(customerConsented: true, deliveryStatus: .undeliveredServerOutage, sampleContentProvided: true)
        #expect(
            String(decoding: request.json, as: UTF8.self)
                == #"{"customerConsented":true,"deliveryStatus":"UNDELIVERED_SERVER_OUTAGE","sampleContentProvided":true}"#)
    }

    @Test(arguments: [Int32(-1), 100_001])
    func sendConsumptionInformation_outOfRangePercentage_isNotSent(percentage: Int32) throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        let request = ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false, consumptionPercentage: percentage)
        #expect(
            throws: AppStoreError.invalidRequest(
                endpoint: "PUT /inApps/v2/transactions/consumption/t1 (Production)",
                reason: "consumptionPercentage \(percentage) is outside 0...100000 (milliunits)")
        ) {
            try SignedAnswers.client(fake).sendConsumptionInformation(transactionId: "t1", request: request, environment: .production)
        }
        #expect(fake.seen.isEmpty)
    }

    @Test func sendConsumptionInformation_appleRefusal_namesTheEndpointAndCode() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        fake.state.withLock { $0.appleErrors = [(400, 4_000_183)] }
        let request = ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false)
        #expect(
            throws: AppStoreError.refused(
                endpoint: "PUT /inApps/v2/transactions/consumption/t1 (Production)", status: 400, errorCode: 4_000_183, errorMessage: "Error on demand.")
        ) {
            try SignedAnswers.client(fake).sendConsumptionInformation(transactionId: "t1", request: request, environment: .production)
        }
    }

    @Test func sendConsumptionInformation_serverErrors_areRetried_thenSucceed() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(500, nil)] }
        let sleeps = Sleeps()
        let request = ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false)
        try SignedAnswers.client(fake, sleeps: sleeps).sendConsumptionInformation(transactionId: "t1", request: request, environment: .production)
        #expect(sleeps.recorded == [10])
        #expect(fake.seen.map(\.method) == ["PUT", "PUT"])
        #expect(fake.seen.map(\.body) == Array(repeating: String(decoding: request.json, as: UTF8.self), count: 2))
    }
}
