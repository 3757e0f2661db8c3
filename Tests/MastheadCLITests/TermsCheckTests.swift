import Foundation
import MastheadJSON
import MastheadTestSupport
import Testing

/// `masthead check` shows the offer and billing terms of signed data (JSON), and says how a
/// revocation ended a purchase (text, R5.3).
struct TermsCheckTests {
    /// Signed renewal info of Table 6-1's subscription, changed by `fields`.
    static func renewal(_ fields: [String: Any]) throws -> String {
        var payload: [String: Any] = [
            "originalTransactionId": "1000001", "productId": "com.example.monthly", "autoRenewProductId": "com.example.monthly",
            "autoRenewStatus": 1, "signedDate": 1_592_395_200_000, "environment": "Production",
        ]
        payload.merge(fields) { $1 }
        return try SignedData.sign(payload)
    }

    /// Runs `check` on one signed document in `folder`.
    static func check(transactions: [String], renewals: [String] = [], format: String, in folder: URL) throws -> Tool.Outcome {
        let path = try SignedData.write(SignedData.document(transactions: transactions, renewals: renewals), "signed.json", in: folder)
        return try Tool.run(
            ["check", "--catalog", "Catalog/the-monthly", "--receipt", path, "--format", format] + SignedCheckTests.at + SignedData.trustTestChain)
    }

    /// A win-back offer redeemed under a monthly commitment, and renewal info offering more win-backs:
    /// every field is shown with Apple's name, as sent.
    @Test func checkJSON_showsWinBackOfferAndCommitmentTerms_ofTransactionsAndRenewalInfo() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let transaction = try SignedData.transaction([
            "offerType": 4, "offerIdentifier": "come-back-3m", "offerPeriod": "P3M", "offerDiscountType": "PAY_AS_YOU_GO",
            "appTransactionId": "704183259315648010", "billingPlanType": "MONTHLY",
            "commitmentInfo": ["billingPeriodNumber": 2, "totalBillingPeriods": 12, "commitmentExpiresDate": 1_623_931_200_000, "commitmentPrice": 99_990],
        ])
        let renewal = try Self.renewal([
            "appAccountToken": "7E3FB20B-4CDB-47CC-936D-99D65F608138", "appTransactionId": "704183259315648010",
            "eligibleWinBackOfferIds": ["come-back-3m", "come-back-1m"], "renewalBillingPlanType": "BILLED_UPFRONT",
            "offerType": 2, "offerIdentifier": "loyal-reader", "offerPeriod": "P1Y",
            "commitmentInfo": [
                "commitmentAutoRenewProductId": "com.example.monthly", "commitmentAutoRenewStatus": 1,
                "commitmentRenewalBillingPlanType": "MONTHLY", "commitmentRenewalDate": 1_623_931_200_000, "commitmentRenewalPrice": 119_880,
            ] as [String: Any],
        ])
        let outcome = try Self.check(transactions: [transaction], renewals: [renewal], format: "json", in: folder)
        #expect(outcome.errors == "")
        #expect(outcome.status == 0)
        let publication = try #require(try JSONDocument(parsing: outcome.output).root["publications"]?.elements.first { _ in true })
        let purchases = try #require(publication["purchaseTerms"]).elements.map { $0 }
        #expect(purchases.count == 1)
        let terms = try #require(purchases.first)
        #expect(terms["transactionId"]?.string == "1000003")
        #expect(terms["productId"]?.string == "com.example.monthly")
        #expect(terms["purchased"]?.string == "2020-06-17T12:00:00Z")
        #expect(terms["offerType"]?.int64 == 4)
        #expect(terms["offerIdentifier"]?.string == "come-back-3m")
        #expect(terms["offerPeriod"]?.string == "P3M")
        #expect(terms["appTransactionId"]?.string == "704183259315648010")
        #expect(terms["billingPlanType"]?.string == "MONTHLY")
        let commitment = try #require(terms["commitmentInfo"])
        #expect(commitment["billingPeriodNumber"]?.int64 == 2)
        #expect(commitment["totalBillingPeriods"]?.int64 == 12)
        #expect(commitment["commitmentExpiresDate"]?.string == "2021-06-17T12:00:00Z")
        #expect(commitment["commitmentPrice"]?.int64 == 99_990)
        // The win-back period is an offer interval.
        #expect(publication["periods"]?.elements.contains { $0["intervals"]?.elements.contains { $0["kind"]?.string == "offer" } == true } == true)

        let renewalTerms = try #require(publication["status"]?["renewalTerms"])
        #expect(renewalTerms["appAccountToken"]?.string == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(renewalTerms["appTransactionId"]?.string == "704183259315648010")
        #expect(renewalTerms["offerType"]?.int64 == 2)
        #expect(renewalTerms["offerIdentifier"]?.string == "loyal-reader")
        #expect(renewalTerms["offerPeriod"]?.string == "P1Y")
        #expect(renewalTerms["eligibleWinBackOfferIds"]?.elements.compactMap(\.string) == ["come-back-3m", "come-back-1m"])
        #expect(renewalTerms["renewalBillingPlanType"]?.string == "BILLED_UPFRONT")
        let next = try #require(renewalTerms["commitmentInfo"])
        #expect(next["commitmentAutoRenewProductId"]?.string == "com.example.monthly")
        #expect(next["commitmentAutoRenewStatus"]?.int64 == 1)
        #expect(next["commitmentRenewalBillingPlanType"]?.string == "MONTHLY")
        #expect(next["commitmentRenewalDate"]?.string == "2021-06-17T12:00:00Z")
        #expect(next["commitmentRenewalPrice"]?.int64 == 119_880)
    }

    /// Without terms (the receipt of Table 6-1), the purchases show none and the renewal terms are null.
    @Test func checkJSON_withoutTerms_showsAnEmptyListAndNull() throws {
        let outcome = try SignedCheckTests.check(["Catalog/the-monthly/receipts/table-6-1.json"], ["--format", "json"])
        #expect(outcome.status == 0)
        let publication = try #require(try JSONDocument(parsing: outcome.output).root["publications"]?.elements.first { _ in true })
        #expect(publication["purchaseTerms"]?.kind == .array)
        #expect(publication["purchaseTerms"]?.count == 0)
        #expect(publication["status"]?["renewalTerms"]?.isNull == true)
    }

    /// A prorated refund and a Family Sharing revocation end the purchase at the revocation
    /// (R5.3): the text report says so, with the share refunded; a full refund is a refund (R5.1).
    @Test(arguments: [
        ("REFUND_PRORATED", 40_000, "  Refund   1000003 (com.example.monthly) refund prorated (40%): ended at 2020-06-27 12:00"),
        ("REFUND_PRORATED", nil, "  Refund   1000003 (com.example.monthly) refund prorated: ended at 2020-06-27 12:00"),
        ("FAMILY_REVOKE", nil, "  Revoked  1000003 (com.example.monthly) Family Sharing ended at 2020-06-27 12:00"),
        ("REFUND_FULL", 100_000, "  Refund   1000003 (com.example.monthly) refunded 2020-06-27 12:00"),
    ] as [(String, Int?, String)])
    func checkText_saysHowARevocationEndedThePurchase_R5_3(type: String, percentage: Int?, line: String) throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var fields: [String: Any] = ["revocationDate": 1_593_259_200_000, "revocationType": type, "revocationReason": 0, "signedDate": 1_593_259_200_000]
        if let percentage { fields["revocationPercentage"] = percentage }
        let outcome = try Self.check(transactions: [try SignedData.transaction(fields)], format: "text", in: folder)
        #expect(outcome.errors == "")
        #expect(outcome.status == 0)
        #expect(outcome.output.split(separator: "\n").contains { $0 == line }, "\(outcome.output)")
    }
}
