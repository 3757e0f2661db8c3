import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
import Testing

/// Signed payloads mapped to the engine's transactions and renewal info (R2.8, R5, R14).
struct SignedDataDecoderTests {
    static let catalog = Catalog(
        publications: [Publication(id: "the-monthly", title: "The Monthly", issues: [])],
        products: [
            Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive),
            Product(productId: "pass", type: .nonRenewing, publications: ["the-monthly"], access: .archive, duration: CalendarDuration(months: 1)),
            Product(productId: "free", type: .free, publications: ["the-monthly"], access: .archive),
            Product(productId: "issue-05", publication: "the-monthly", issue: "2020-05"),
        ])

    /// A signed transaction payload of product `monthly` with `extra` members.
    static func payload(_ extra: String = "", product: String = "monthly", type: String? = "Auto-Renewable Subscription") -> [UInt8] {
        let typeMember = type.map { #", "type": ""# + $0 + #"""# } ?? ""
        return Array(
            (#"{"transactionId": "t1", "originalTransactionId": "o1", "productId": ""# + product + #"", "purchaseDate": 1580000000000, "#
                + #""expiresDate": 1582000000000, "signedDate": 1581000000000, "environment": "Production""# + typeMember + extra + "}").utf8)
    }

    static func transaction(_ extra: String = "", product: String = "monthly", type: String? = "Auto-Renewable Subscription") throws(FormatError)
        -> Transaction
    {
        try SignedDataDecoder(catalog: catalog).transaction(payload(extra, product: product, type: type)).transaction
    }

    @Test func signedTransaction_mapsToTheEngine() throws {
        let signed = try SignedDataDecoder().transaction(Fixtures.model("signedTransaction.json"))
        #expect(signed.payload.transactionId == "23456")
        #expect(
            signed.transaction
                == Transaction(
                    transactionId: "23456", originalTransactionId: "12345", productId: "com.example.product",
                    purchase: Instant(milliseconds: 1_698_148_900_000), expires: Instant(milliseconds: 1_698_149_000_000),
                    cancellation: Instant(milliseconds: 1_698_148_950_000), isUpgraded: true, isIntroductoryOffer: true, environment: .sandbox,
                    signedDate: Instant(milliseconds: 1_698_148_900_000),
                    terms: PurchaseTerms(
                        offerType: 1, offerIdentifier: "abc.123", offerPeriod: "P1Y", appTransactionId: "71134", billingPlanType: "MONTHLY",
                        commitment: PurchaseCommitment(
                            billingPeriodNumber: 3, totalBillingPeriods: 12, expires: Instant(milliseconds: 1_698_150_000_000), price: 119_880))))
    }

    /// Apple's offer and billing terms are kept as sent (win-back, offer period, commitment);
    /// a payload without any keeps none, and neither does a receipt.
    @Test func terms_keptAsSent_noneWithoutThem() throws {
        let winBack = try Self.transaction(
            #", "offerType": 4, "offerIdentifier": "come-back", "offerPeriod": "P3M", "appTransactionId": "7", "billingPlanType": "BILLED_UPFRONT", "#
                + #""commitmentInfo": {"billingPeriodNumber": 1, "totalBillingPeriods": 1, "commitmentExpiresDate": 1612000000000, "commitmentPrice": 99990}"#)
        #expect(winBack.offer == .winBack)
        #expect(
            winBack.terms
                == PurchaseTerms(
                    offerType: 4, offerIdentifier: "come-back", offerPeriod: "P3M", appTransactionId: "7", billingPlanType: "BILLED_UPFRONT",
                    commitment: PurchaseCommitment(
                        billingPeriodNumber: 1, totalBillingPeriods: 1, expires: Instant(milliseconds: 1_612_000_000_000), price: 99_990)))
        #expect(try Self.transaction(#", "billingPlanType": "SOMEDAY""#).terms == PurchaseTerms(billingPlanType: "SOMEDAY"))
        #expect(try Self.transaction().terms == nil)
        #expect(try Self.transaction(#", "storefront": "USA", "price": 9990"#).terms == nil)
        let receipt = try ReceiptDecoder().decode(Fixtures.example("receipts/grace.json"))
        #expect(!receipt.transactions.isEmpty && receipt.transactions.allSatisfy { $0.terms == nil })
        #expect(!receipt.renewals.isEmpty && receipt.renewals.allSatisfy { $0.terms == nil })
    }

    @Test func offers_label_freeTrialIntroductoryAndOthers() throws {
        let trial = try Self.transaction(#", "offerType": 1, "offerDiscountType": "FREE_TRIAL""#)
        #expect(trial.isTrial && !trial.isIntroductoryOffer && trial.offer == nil)
        let intro = try Self.transaction(#", "offerType": 1, "offerDiscountType": "PAY_UP_FRONT""#)
        #expect(!intro.isTrial && intro.isIntroductoryOffer && intro.offer == nil)
        let promotionalTrial = try Self.transaction(#", "offerType": 2, "offerDiscountType": "FREE_TRIAL""#)
        #expect(promotionalTrial.isTrial && promotionalTrial.offer == .promotional)
        #expect(try Self.transaction(#", "offerType": 3"#).offer == .offerCode)
        #expect(try Self.transaction(#", "offerType": 4"#).offer == .winBack)
        #expect(try Self.transaction(#", "offerType": 9"#).offer == .other)
        let plain = try Self.transaction()
        #expect(!plain.isTrial && !plain.isIntroductoryOffer && plain.offer == nil)
    }

    @Test func familyShared_grantsLikePurchased() throws {
        #expect(try Self.transaction(#", "inAppOwnershipType": "FAMILY_SHARED""#) == Self.transaction(#", "inAppOwnershipType": "PURCHASED""#))
    }

    @Test func revocationAndUpgrade_areTheCancellation_R5() throws {
        let refunded = try Self.transaction(#", "revocationDate": 1580500000000, "revocationReason": 0"#)
        #expect(refunded.cancellation == Instant(milliseconds: 1_580_500_000_000) && !refunded.isUpgraded)
        let upgraded = try Self.transaction(#", "revocationDate": 1580500000000, "isUpgraded": true"#)
        #expect(upgraded.cancellation == Instant(milliseconds: 1_580_500_000_000) && upgraded.isUpgraded)
        let familyRevoked = try Self.transaction(#", "revocationDate": 1580500000000, "revocationType": "FAMILY_REVOKE""#)
        #expect(familyRevoked.cancellation == Instant(milliseconds: 1_580_500_000_000))
    }

    /// `revocationType` and `revocationPercentage` go with the cancellation (R5.3): prorated
    /// refunds and Family Sharing revocations end the transaction, other types refund it, and
    /// an unknown type is kept as sent.
    @Test func revocationTypeAndPercentage_goWithTheCancellation_R5_3() throws {
        let prorated = try Self.transaction(#", "revocationDate": 1580500000000, "revocationType": "REFUND_PRORATED", "revocationPercentage": 25000"#)
        #expect(prorated.revocationType == .refundProrated && prorated.revocationPercentage == 25_000)
        #expect(prorated.cancellationEndsTransaction)
        let family = try Self.transaction(#", "revocationDate": 1580500000000, "revocationType": "FAMILY_REVOKE""#)
        #expect(family.revocationType == .familyRevoke && family.cancellationEndsTransaction)
        let full = try Self.transaction(#", "revocationDate": 1580500000000, "revocationType": "REFUND_FULL", "revocationPercentage": 100000"#)
        #expect(full.revocationType == .refundFull && !full.cancellationEndsTransaction)
        let unknown = try Self.transaction(#", "revocationDate": 1580500000000, "revocationType": "REFUND_LATER""#)
        #expect(unknown.revocationType?.rawValue == "REFUND_LATER" && !unknown.cancellationEndsTransaction)
        #expect(try Self.transaction().revocationType == nil)
    }

    /// A prorated refund in the entitlement JSON: the refund with its type, and the issues it no
    /// longer pays for denied as `endedByRevocation` with the instant, type and share (R5.3, R16).
    @Test func proratedRefund_inTheEntitlementJSON_R5_3() throws {
        // Purchased 2020-01-26, expires 2020-02-18, refunded prorated on 2020-02-01 00:00.
        let transaction = try Self.transaction(#", "revocationDate": 1580515200000, "revocationType": "REFUND_PRORATED", "revocationPercentage": 25000"#)
        let publication = Publication(
            id: "the-monthly", title: "The Monthly",
            issues: [
                Issue(id: "jan", published: Instant(milliseconds: 1_580_000_000_000)),
                Issue(id: "feb", published: Instant(milliseconds: 1_580_600_000_000)),
            ])
        let catalog = Catalog(publications: [publication], products: Self.catalog.products.values.map { $0 })
        let entitlement = EntitlementEngine(catalog: catalog).evaluate(
            PurchaseHistory(transactions: [transaction]), publication: publication, at: Instant(milliseconds: 1_590_000_000_000))
        var writer = JSONWriter(capacity: 1024)
        EntitlementJSON.write(entitlement, into: &writer)
        let root = try JSONDocument(parsing: writer.bytes).root
        #expect(root["readable"]?.elements.map(\.string) == ["jan"])
        let refund = try #require(root["refunded"].map { Array($0.elements) }?.first)
        #expect(refund["transactionId"]?.string == "t1")
        #expect(refund["revocationType"]?.string == "REFUND_PRORATED")
        let denial = try #require(root["issues"].map { Array($0.elements) }?.last?["reason"])
        #expect(denial["kind"]?.string == "endedByRevocation")
        #expect(denial["transactionId"]?.string == "t1")
        #expect(denial["revokedAt"]?.string == Instant(milliseconds: 1_580_515_200_000).description)
        #expect(denial["revocationType"]?.string == "REFUND_PRORATED")
        #expect(denial["revocationPercentage"]?.int64 == 25_000)
    }

    @Test(arguments: [("Production", Environment.production), ("Sandbox", .sandbox), ("Xcode", .sandbox), ("LocalTesting", .sandbox), ("Staging", .sandbox)])
    func environment_onlyProductionGrantsInProduction(raw: String, expected: Environment) throws {
        let json = String(decoding: Self.payload(), as: UTF8.self).replacingOccurrences(of: #""Production""#, with: "\"\(raw)\"")
        #expect(try SignedDataDecoder().transaction(Array(json.utf8)).transaction.environment == expected)
    }

    @Test func requiredFields_missing_areNamed() {
        for key in ["transactionId", "productId", "purchaseDate", "signedDate", "environment"] {
            let json = String(decoding: Self.payload(), as: UTF8.self).replacingOccurrences(of: "\"\(key)\"", with: "\"other\(key)\"")
            #expect(throws: FormatError.missingField(path: "$.\(key)", line: 1)) { try SignedDataDecoder().transaction(Array(json.utf8)) }
        }
    }

    @Test func productType_mustFitTheCatalog() throws {
        #expect(
            throws: FormatError.productTypeMismatch(
                path: "$.type", line: 1, value: "\"Consumable\"", productId: "monthly", catalogType: .autoRenewable)
        ) { try Self.transaction(type: "Consumable") }
        #expect(
            throws: FormatError.productTypeMismatch(
                path: "$.type", line: 1, value: "\"Non-Renewing Subscription\"", productId: "issue-05", catalogType: .issue)
        ) { try Self.transaction(product: "issue-05", type: "Non-Renewing Subscription") }
        #expect(throws: FormatError.missingField(path: "$.type", line: 1)) { try Self.transaction(type: nil) }
        #expect(try Self.transaction(product: "pass", type: "Non-Renewing Subscription").productId == "pass")
        #expect(try Self.transaction(product: "free", type: "Non-Consumable").productId == "free")
        #expect(try Self.transaction(product: "issue-05", type: "Non-Consumable").productId == "issue-05")
        // A product the catalog does not know grants nothing (R3): its type is not checked.
        #expect(try Self.transaction(product: "unknown", type: "Consumable").productId == "unknown")
        // Without a catalog nothing is compared.
        #expect(try SignedDataDecoder().transaction(Self.payload(type: "Consumable")).transaction.productId == "monthly")
    }

    @Test func autoRenewableWithoutExpiry_andExpiryBeforePurchase_areErrors() {
        let noExpiry = String(decoding: Self.payload(), as: UTF8.self).replacingOccurrences(of: #""expiresDate": 1582000000000, "#, with: "")
        #expect(throws: FormatError.missingField(path: "$.expiresDate", line: 1)) {
            try SignedDataDecoder(catalog: Self.catalog).transaction(Array(noExpiry.utf8))
        }
        let early = "{\n\"transactionId\": \"t1\", \"productId\": \"x\", \"purchaseDate\": 1580000000000,\n\"expiresDate\": 1570000000000,\n"
            + "\"signedDate\": 1581000000000, \"environment\": \"Sandbox\"}"
        #expect(
            throws: FormatError.expiresBeforePurchase(
                path: "$.expiresDate", line: 3, value: "1570000000000", expires: Instant(milliseconds: 1_570_000_000_000),
                purchase: Instant(milliseconds: 1_580_000_000_000))
        ) { try SignedDataDecoder().transaction(Array(early.utf8)) }
    }

    @Test func signedRenewalInfo_mapsWithItsSignedDateAsEvidence_R2_7() throws {
        let signed = try SignedDataDecoder().renewal(Fixtures.model("signedRenewalInfo.json"))
        #expect(
            signed.renewal
                == RenewalInfo(
                    environment: .sandbox, originalTransactionId: "12345", productId: "com.example.product",
                    autoRenewProductId: "com.example.product.2", autoRenewOn: true, isInBillingRetry: true,
                    gracePeriodExpires: Instant(milliseconds: 1_698_148_900_000), expirationIntent: "1",
                    evidence: Instant(milliseconds: 1_698_148_800_000),
                    terms: RenewalTerms(
                        appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", appTransactionId: "71134", offerType: 2, offerIdentifier: "abc.123",
                        offerPeriod: "P1Y", eligibleWinBackOfferIds: ["eligible1", "eligible2"], renewalBillingPlanType: "MONTHLY",
                        commitment: RenewalCommitment(
                            autoRenewProductId: "com.example.product.commitment", autoRenewStatus: 1, renewalBillingPlanType: "MONTHLY",
                            renewalDate: Instant(milliseconds: 1_698_149_500_000), renewalPrice: 9990))))
        let off = try SignedDataDecoder().renewal(
            Array(#"{"originalTransactionId": "o", "autoRenewStatus": 0, "signedDate": 1, "environment": "Production"}"#.utf8))
        #expect(off.renewal.autoRenewOn == false && off.renewal.environment == .production && !off.renewal.isInBillingRetry)
        let unknown = try SignedDataDecoder().renewal(
            Array(#"{"originalTransactionId": "o", "autoRenewStatus": 5, "signedDate": 1, "environment": "Production"}"#.utf8))
        #expect(unknown.renewal.autoRenewOn == nil)
        #expect(throws: FormatError.missingField(path: "$.originalTransactionId", line: 1)) {
            try SignedDataDecoder().renewal(Fixtures.mockPayload("renewalInfo"))
        }
    }

    /// A refund, then its reversal, as two signed copies of one transaction read from payloads (R2.8).
    @Test func refundThenReversal_payloads_restoreAccess() throws {
        let issues = [Issue(id: "2020-02", published: Instant(milliseconds: 1_580_515_200_000))]
        let catalog = Catalog(
            publications: [Publication(id: "the-monthly", title: "The Monthly", issues: issues)],
            products: [Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive)])
        let decoder = SignedDataDecoder(catalog: catalog)
        let refund = try decoder.transaction(Self.payload(#", "revocationDate": 1580600000000"#)).transaction
        let reversed = try decoder.transaction(
            Array(String(decoding: Self.payload(), as: UTF8.self).replacingOccurrences(of: "1581000000000", with: "1581500000000").utf8)
        ).transaction
        let at = Instant(milliseconds: 1_581_600_000_000)
        let engine = EntitlementEngine(catalog: catalog)
        let refunded = engine.evaluate(PurchaseHistory(transactions: [refund]), publication: catalog.publications[0], at: at)
        #expect(refunded.readableIssueIds.isEmpty)
        for order in [[refund, reversed], [reversed, refund]] {
            let answer = engine.evaluate(PurchaseHistory(transactions: order), publication: catalog.publications[0], at: at)
            #expect(answer.readableIssueIds == ["2020-02"])
        }
    }
}

extension SignedDataDecoderTests {
    @Test func productTypeMismatch_saysHowTheCatalogsTypeIsSold() {
        let error = FormatError.productTypeMismatch(path: "$.type", line: 1, value: "\"Consumable\"", productId: "monthly", catalogType: .autoRenewable)
        #expect(
            error.description
                == #"$.type: "Consumable" (line 1) does not fit the catalog, where monthly is autoRenewable, sold as "Auto-Renewable Subscription""#)
    }
}
