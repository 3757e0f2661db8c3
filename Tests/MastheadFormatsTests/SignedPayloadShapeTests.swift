import Masthead
import MastheadFormats
import MastheadJSON
import Testing

/// Signed payloads as Apple's models type them: wrong JSON types are errors naming path and
/// line, unknown values are kept, unknown fields ignored (R2.8).
struct SignedPayloadShapeTests {
    static func transaction(_ json: String) throws(FormatError) -> JWSTransactionDecodedPayload {
        try JWSTransactionDecodedPayload(decoding: Array(json.utf8))
    }

    @Test func wrongJSONType_namesPathLineAndValue() {
        #expect(throws: FormatError.invalidValue(path: "$.transactionId", line: 1, value: "23456", expected: "a string")) {
            try Self.transaction(#"{"transactionId": 23456}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.price", line: 3, value: "9.99", expected: "an integer")) {
            try Self.transaction("{\n  \"currency\": \"USD\",\n  \"price\": 9.99\n}")
        }
        #expect(throws: FormatError.invalidValue(path: "$.isUpgraded", line: 1, value: "\"true\"", expected: "true or false")) {
            try Self.transaction(#"{"isUpgraded": "true"}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.quantity", line: 1, value: "4294967296", expected: "a 32-bit integer")) {
            try Self.transaction(#"{"quantity": 4294967296}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$", line: 1, value: "an array", expected: "a signed transaction payload object")) {
            try Self.transaction("[]")
        }
    }

    @Test func dates_areIntegerMilliseconds_from1970Through9999() {
        let expected = "milliseconds since 1970 (an integer, up to 9999-12-31)"
        #expect(throws: FormatError.invalidValue(path: "$.purchaseDate", line: 1, value: "\"1698148900000\"", expected: expected)) {
            try Self.transaction(#"{"purchaseDate": "1698148900000"}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.expiresDate", line: 1, value: "-1", expected: expected)) {
            try Self.transaction(#"{"expiresDate": -1}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.signedDate", line: 1, value: "253402300800000", expected: expected)) {
            try Self.transaction(#"{"signedDate": 253402300800000}"#)
        }
    }

    @Test func nestedFields_namePathsThroughObjectsAndArrays() {
        let json = """
            {"advancedCommerceInfo": {"items": [{"refunds": []}, {"refunds": [{}, {"refundDate": "yesterday"}]}]}}
            """
        #expect(
            throws: FormatError.invalidValue(
                path: "$.advancedCommerceInfo.items[1].refunds[1].refundDate", line: 1, value: "\"yesterday\"",
                expected: "milliseconds since 1970 (an integer, up to 9999-12-31)")
        ) { try Self.transaction(json) }
        #expect(throws: FormatError.invalidValue(path: "$.commitmentInfo", line: 1, value: "12", expected: "a commitment info object")) {
            try Self.transaction(#"{"commitmentInfo": 12}"#)
        }
        #expect(throws: FormatError.invalidValue(path: "$.eligibleWinBackOfferIds[1]", line: 1, value: "2", expected: "a string")) {
            try JWSRenewalInfoDecodedPayload(decoding: Array(#"{"eligibleWinBackOfferIds": ["a", 2]}"#.utf8))
        }
        #expect(throws: FormatError.invalidValue(path: "$.data.appAppleId", line: 1, value: "\"1234\"", expected: "an integer")) {
            try ResponseBodyV2DecodedPayload(decoding: Array(#"{"data": {"appAppleId": "1234"}}"#.utf8))
        }
    }

    @Test func unknownValues_areKeptRaw_unknownFieldsIgnored_nullIsAbsent() throws {
        let payload = try Self.transaction(
            #"{"type": "Subscription Bundle", "offerType": 9, "environment": "Staging", "inAppOwnershipType": "LENT", "#
                + #""transactionReason": "GIFT", "revocationReason": 7, "offerDiscountType": "HALF_OFF", "revocationType": "OTHER", "#
                + #""billingPlanType": "WEEKLY", "futureField": {"x": [1, 2]}, "productId": null, "revocationDate": null}"#)
        #expect(payload.type?.rawValue == "Subscription Bundle")
        #expect(payload.offerType?.rawValue == 9)
        #expect(payload.environment?.rawValue == "Staging")
        #expect(payload.inAppOwnershipType?.rawValue == "LENT")
        #expect(payload.transactionReason?.rawValue == "GIFT")
        #expect(payload.revocationReason?.rawValue == 7)
        #expect(payload.offerDiscountType?.rawValue == "HALF_OFF")
        #expect(payload.revocationType?.rawValue == "OTHER")
        #expect(payload.billingPlanType?.rawValue == "WEEKLY")
        #expect(payload.productId == nil)
        #expect(payload.revocationDate == nil)
        let notification = try ResponseBodyV2DecodedPayload(
            decoding: Array(#"{"notificationType": "GIFTED", "subtype": "SURPRISE", "data": {"status": 9, "consumptionRequestReason": "BORED"}}"#.utf8))
        #expect(notification.notificationType?.rawValue == "GIFTED")
        #expect(notification.subtype?.rawValue == "SURPRISE")
        #expect(notification.data?.status?.rawValue == 9)
        #expect(notification.data?.consumptionRequestReason?.rawValue == "BORED")
        let renewal = try JWSRenewalInfoDecodedPayload(
            decoding: Array(#"{"expirationIntent": 6, "autoRenewStatus": 2, "priceIncreaseStatus": 3}"#.utf8))
        #expect(renewal.expirationIntent?.rawValue == 6)
        #expect(renewal.autoRenewStatus?.rawValue == 2)
        #expect(renewal.priceIncreaseStatus?.rawValue == 3)
    }

    @Test func uuids_areValidated_andWrittenInLowerCase() throws {
        let upper = try Self.transaction(#"{"appAccountToken": "7E3FB20B-4CDB-47CC-936D-99D65F608138"}"#)
        #expect(upper.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        for bad in ["7e3fb20b4cdb47cc936d99d65f608138", "7e3fb20b-4cdb-47cc-936d-99d65f60813g", "7e3fb20b-4cdb-47cc-936d_99d65f608138", ""] {
            #expect(throws: FormatError.invalidValue(path: "$.appAccountToken", line: 1, value: "\"\(bad)\"", expected: "a UUID")) {
                try Self.transaction(#"{"appAccountToken": ""# + bad + #""}"#)
            }
        }
        #expect(throws: FormatError.invalidValue(path: "$.notificationUUID", line: 1, value: "\"n-1\"", expected: "a UUID")) {
            try ResponseBodyV2DecodedPayload(decoding: Array(#"{"notificationUUID": "n-1"}"#.utf8))
        }
    }

    @Test func identifiers_holdingControlCharacters_areErrors_R2() {
        #expect(
            throws: FormatError.invalidValue(
                path: "$.transactionId", line: 1, value: #""1\u0000""#, expected: "an identifier without control characters")
        ) { try Self.transaction(#"{"transactionId": "1\u0000"}"#) }
    }

    @Test func invalidJSON_andRepeatedNames_areErrors() {
        #expect(throws: FormatError.self) { try Self.transaction(#"{"transactionId": "1""#) }
        do {
            _ = try Self.transaction(#"{"transactionId": "1", "transactionId": "2"}"#)
            Issue.record("a repeated name was accepted")
        } catch {
            guard case .invalidJSON(.duplicateKey(let name, _, _)) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(name == "transactionId")
        }
    }
}
