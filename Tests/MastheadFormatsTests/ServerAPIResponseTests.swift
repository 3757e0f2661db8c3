import Masthead
import MastheadFormats
import Testing

/// The App Store Server API's answers, read from Apple's own model files.
struct ServerAPIResponseTests {
    @Test func statusResponse_readsAppleModel() throws {
        let response = try StatusResponse(decoding: try Fixtures.model("getAllSubscriptionStatusesResponse.json"))
        #expect(response.environment == .localTesting)
        #expect(response.bundleId == "com.example")
        #expect(response.appAppleId == 5_454_545)
        #expect(response.data.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
        let first = try #require(response.data.first?.lastTransactions.first)
        #expect(first.status == .active)
        #expect(first.originalTransactionId == "3749183")
        #expect(first.signedTransactionInfo == "signed_transaction_one")
        #expect(first.signedRenewalInfo == "signed_renewal_one")
        #expect(response.data[0].lastTransactions[1].status == .revoked)
        #expect(response.data[1].lastTransactions.map(\.originalTransactionId) == ["3413453"])
    }

    @Test func historyResponse_readsAppleModel() throws {
        let response = try HistoryResponse(decoding: try Fixtures.model("transactionHistoryResponse.json"))
        #expect(response.revision == "revision_output")
        #expect(response.hasMore == true)
        #expect(response.bundleId == "com.example")
        #expect(response.appAppleId == 323_232)
        #expect(response.environment == .localTesting)
        #expect(response.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
    }

    @Test func transactionInfoResponse_readsAppleModel() throws {
        let response = try TransactionInfoResponse(decoding: try Fixtures.model("transactionInfoResponse.json"))
        #expect(response.signedTransactionInfo == "signed_transaction_info_value")
    }

    @Test func notificationHistoryResponse_readsAppleModel() throws {
        let response = try NotificationHistoryResponse(decoding: try Fixtures.model("getNotificationHistoryResponse.json"))
        #expect(response.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
        #expect(response.hasMore == true)
        #expect(response.notificationHistory.map(\.signedPayload) == ["signed_payload_one", "signed_payload_two"])
        let attempts = response.notificationHistory[0].sendAttempts
        #expect(attempts.map(\.attemptDate) == [Instant(milliseconds: 1_698_148_900_000), Instant(milliseconds: 1_698_148_950_000)])
        #expect(attempts.map(\.sendAttemptResult) == ["NO_RESPONSE", "SUCCESS"])
        #expect(response.notificationHistory[1].sendAttempts.map(\.sendAttemptResult) == ["CIRCULAR_REDIRECT"])
    }

    @Test func orderLookupResponse_readsItsShape() throws {
        let response = try OrderLookupResponse(decoding: Array(#"{"status": 1, "signedTransactions": ["one", "two"]}"#.utf8))
        #expect(response.status == 1)
        #expect(response.signedTransactions == ["one", "two"])
    }

    @Test(arguments: [
        ("apiException.json", 5_000_000, "An unknown error occurred."), ("apiTooManyRequestsException.json", 4_290_000, "Rate limit exceeded."),
        ("invalidTransactionIdError.json", 4_000_006, "Invalid transaction id."),
    ])
    func errorPayload_readsAppleModels(file: String, code: Int64, message: String) throws {
        let payload = try ErrorPayload(decoding: try Fixtures.model(file))
        #expect(payload.errorCode == code)
        #expect(payload.errorMessage == message)
    }

    /// A member of the wrong JSON type is an error naming its path and line.
    @Test(arguments: [
        (#"{"data": [{"lastTransactions": [{"status": "1"}]}]}"#, "$.data[0].lastTransactions[0].status"),
        (#"{"data": {}}"#, "$.data"),
        (#"{"hasMore": "yes"}"#, "$.hasMore"),
        (#"{"signedTransactions": ["a", 2]}"#, "$.signedTransactions[1]"),
        (#"{"notificationHistory": [{"sendAttempts": [{"attemptDate": "soon"}]}]}"#, "$.notificationHistory[0].sendAttempts[0].attemptDate"),
    ])
    func wrongType_isAnError_namingItsPath(json: String, path: String) {
        let bytes = Array(json.utf8)
        do {
            if json.contains("\"data\"") { _ = try StatusResponse(decoding: bytes) }
            else if json.contains("notificationHistory") { _ = try NotificationHistoryResponse(decoding: bytes) }
            else { _ = try HistoryResponse(decoding: bytes) }
            Issue.record("\(json) was read")
        } catch {
            guard case .invalidValue(let found, _, _, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(found == path)
        }
    }

    @Test func notAnObject_isAnError_namingTheRoot() {
        #expect(throws: FormatError.invalidValue(path: "$", line: 1, value: "an array", expected: "a status response object")) {
            try StatusResponse(decoding: Array("[]".utf8))
        }
    }
}
