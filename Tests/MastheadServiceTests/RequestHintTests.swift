import Foundation
import MastheadJSON
import MastheadService
import Testing

/// Mistakes people make often are answered with what was detected and what to send instead.
struct RequestHintTests {
    /// A base64 app receipt (the start of a PKCS #7 container), as an app reads it from its bundle.
    static let base64Receipt = "MIIT0gYJKoZIhvcNAQcCoIITwzCCE78CAQExCzAJBgUrDgMCGgUAMIIDcwYJKoZIhvcNAQcBoIIDZASCA2AxggNc"

    @Test(arguments: [base64Receipt, "\"\(base64Receipt)\"", "\(base64Receipt)\n"])
    func receiptsRoute_base64Receipt_isRefused_withAHintToPostVerifyReceiptsAnswer(body: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/alice/receipts", json: body)
        #expect(answer.status == 400)
        let message = try #require(answer.json?["error"]?["message"]?.string)
        #expect(message.contains("the body looks like a base64 app receipt"), "\(message)")
        #expect(message.contains("post Apple's answer"), "\(message)")
    }

    @Test func receiptsRoute_verifyReceiptRequestBody_isRefused_withAHintToPostAppleAnswer() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let answer = harness.call("POST", "/v1/users/alice/receipts", json: #"{"receipt-data": "\#(Self.base64Receipt)", "password": "x"}"#)
        #expect(answer.status == 400)
        #expect(answer.json?["error"]?["code"]?.string == "invalid_receipt")
        let message = try #require(answer.json?["error"]?["message"]?.string)
        #expect(message.contains("missing field $.status"), "\(message)")
        #expect(message.contains(#"the body is a verifyReceipt request ({"receipt-data": …})"#), "\(message)")
    }

    @Test func receiptsRoute_otherInvalidBodies_getNoHint() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for body in ["{", #"{"status": "x"}"#, "hello", #""short""#] {
            let message = harness.call("POST", "/v1/users/alice/receipts", json: body).json?["error"]?["message"]?.string ?? ""
            #expect(!message.contains("base64 app receipt") && !message.contains("verifyReceipt request"), "\(body): \(message)")
        }
    }

    /// `at=2020-07-02T02:00:00+02:00` sent unencoded: the `+` arrives as a space.
    @Test func atWithAnUnencodedPlus_isRefused_withAHintToEncodeIt() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for target in ["/v1/users/alice/entitlements?at=2020-07-02T02:00:00+02:00", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T02:00:00+02:00"] {
            let answer = harness.call("GET", target)
            #expect(answer.status == 400)
            #expect(answer.json?["error"]?["code"]?.string == "invalid_at")
            let message = try #require(answer.json?["error"]?["message"]?.string)
            #expect(message.contains("encode it as %2B"), "\(message)")
        }
        let other = harness.call("GET", "/v1/users/alice/entitlements?at=yesterday").json?["error"]?["message"]?.string ?? ""
        #expect(!other.contains("%2B"), "\(other)")
    }
}
