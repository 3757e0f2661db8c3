import Masthead
import MastheadFormats
import Testing

/// Real verifyReceipt responses from public projects (`Tests/Fixtures/appstore`), with the
/// inconsistencies real payloads have (R2, R2.4, R2.5).
struct AppStoreFixtureTests {
    /// What each file must give: a receipt with this many transactions, or a rejection whose text contains the words.
    static let expectations: [String: Result<Int, Expected>] = [
        // Sandbox recordings whose purchase_date lies after the expiry (as restored transactions had it).
        "aporat-store-receipt-validator--numeric-fields.json": .failure(
            .init("$.latest_receipt_info[0].expires_date_ms", "before purchase_date 2014-03-25T12:21:23Z", "line 7")),
        "awa-go-iap--status-21007.json": .failure(.init("status 21007", "sandbox (test) receipt was sent to the production")),
        "crashoverride777-swifty-receipt-validator--missing-download-id-inconsistent-expiry.json": .success(2),
        "crashoverride777-swifty-receipt-validator--status-21007-with-full-body.json": .failure(.init("status 21007", "environment mismatch")),
        "dotpot-InAppPy--status-21008-extra-field.json": .failure(.init("status 21008", "production receipt was sent to the sandbox")),
        "gabrielgarza-monza--cancellation-in-app-and-latest.json": .success(2),
        "gabrielgarza-monza--status-21003-with-body.json": .failure(.init("status 21003", "could not be authenticated")),
        "imdhemy-appstore-iap--sandbox-subscription.json": .success(43),
        "ladeiko-node-apple-receipt-verify--status-21006-ios6-expired.json": .success(2),
        "majioa-itunes-receipt--live-sandbox-2017-app-receipt.json": .success(40),
        "majioa-itunes-receipt--live-sandbox-2017-ios6-receipt.json": .success(2),
        "majioa-itunes-receipt--live-sandbox-2017-status-21006-ios6.json": .success(2),
        "majioa-itunes-receipt--live-sandbox-status-21004.json": .failure(.init("status 21004", "shared secret")),
        "nomad-venice--latest-receipt-info-ios6-items-in-array.json": .success(1),
        "nomad-venice--receipt-expiration-date-in-app-no-expires-ms.json": .success(1),
        "nomad-venice--status-21000-is-retryable.json": .failure(.init("status 21000", "could not read")),
        "nomad-venice--status-21006-ios6-trial.json": .success(1),
        "nov-itunes-receipt--ios6-non-subscription-valid.json": .success(1),
        "nov-itunes-receipt--ios7-app-receipt-2013.json": .success(2),
        "nov-itunes-receipt--sandbox-trial-latest-receipt-info-array.json": .failure(
            .init("$.latest_receipt_info[0].expires_date_ms", "\"1415805033000\" (2014-11-12T15:10:33Z) is before purchase_date")),
        "nov-itunes-receipt--status-21002-java-exception.json": .failure(.init("status 21002", "malformed")),
        "nov-itunes-receipt--status-21005.json": .failure(.init("status 21005", "temporarily")),
        "nov-itunes-receipt--status-21006-ios6-autorenew.json": .success(2),
        "nov-itunes-receipt--status-21007-with-ios6-receipt.json": .failure(.init("status 21007", "environment mismatch")),
        "softeamco-candy_check--two-subscriptions-no-ms-dates.json": .success(5),
        "youknowone-itunes-iap--ios6-autorenew-latest-receipt-info-object.json": .success(1),
        "youknowone-itunes-iap--ios6-non-subscription-receipt.json": .success(1),
        "youknowone-itunes-iap--ios6-redacted-top-level-auto-renew.json": .failure(
            .init("$.latest_receipt_info.expires_date", "\"******************************\"", "line 30")),
        "youknowone-itunes-iap--minimal-in-app-no-environment.json": .success(2),
        "youknowone-itunes-iap--sandbox-autorenew-5min-renewals.json": .success(18),
        "malformed/awa-go-iap--http500-garbage-body.json": .failure(.init("invalid JSON", "line 1, column 1")),
        "malformed/awa-go-iap--status-boolean.json": .failure(.init("$.status", "true", "numeric status")),
        "malformed/crashoverride777-swifty-receipt-validator--invalid-format.json": .failure(.init("invalid JSON", "line 4")),
        "malformed/dotpot-InAppPy--status-non-numeric-string.json": .failure(.init("$.status", "\"x\"")),
    ]

    struct Expected: Error, Hashable {
        var words: [String]
        init(_ words: String...) { self.words = words }
    }

    @Test func everyFixture_hasAnExpectation() {
        let files = Set(Fixtures.appStoreFiles("verify-receipt") + Fixtures.appStoreFiles("verify-receipt/malformed").map { "malformed/" + $0 })
        #expect(files.count == 34)
        #expect(files == Set(Self.expectations.keys))
    }

    @Test(arguments: expectations.keys.sorted())
    func fixture_decodesOrIsRejectedClearly(name: String) throws {
        let bytes = try Fixtures.appStoreBytes("verify-receipt", name)
        switch Self.expectations[name]! {
        case .success(let count):
            let receipt = try ReceiptDecoder().decode(bytes)
            #expect(receipt.transactions.count == count)
        case .failure(let expected):
            do {
                _ = try ReceiptDecoder().decode(bytes)
                Issue.record("\(name) was accepted")
            } catch {
                for word in expected.words { #expect(error.description.contains(word), "\(error.description) lacks \(word)") }
            }
        }
    }

    @Test func R2_5_msFieldWins_overDisagreeingText() throws {
        let receipt = try ReceiptDecoder().decode(
            Fixtures.appStoreBytes("verify-receipt", "crashoverride777-swifty-receipt-validator--missing-download-id-inconsistent-expiry.json"))
        let transaction = try #require(receipt.transactions.first { $0.transactionId == "1000000528099637" })
        #expect(transaction.expires == Instant(milliseconds: 1_555_838_366_000))
        #expect(receipt.environment == .sandbox)
    }

    @Test func R2_3_cancellationFromMsField_andCopiesInBothListsAreOne() throws {
        let receipt = try ReceiptDecoder().decode(Fixtures.appStoreBytes("verify-receipt", "gabrielgarza-monza--cancellation-in-app-and-latest.json"))
        let transaction = try #require(receipt.transactions.first { $0.transactionId == "1000000218147500" })
        #expect(transaction.cancellation == Instant(milliseconds: 1_466_127_848_000))
    }

    /// The dates are numbers where Apple documents strings: both are read (and found inconsistent).
    @Test func R2_numbersWhereStringsAreDocumented() throws {
        #expect(throws: FormatError.expiresBeforePurchase(
            path: "$.latest_receipt_info[0].expires_date_ms", line: 7, value: "1394619485000",
            expires: Instant(milliseconds: 1_394_619_485_000), purchase: Instant(milliseconds: 1_395_750_083_000))) {
            try ReceiptDecoder().decode(Fixtures.appStoreBytes("verify-receipt", "aporat-store-receipt-validator--numeric-fields.json"))
        }
    }

    @Test func R2_1_textDatesWithoutMsTwins() throws {
        let receipt = try ReceiptDecoder().decode(Fixtures.appStoreBytes("verify-receipt", "softeamco-candy_check--two-subscriptions-no-ms-dates.json"))
        let transaction = try #require(receipt.transactions.first { $0.transactionId == "1000800359115195" })
        #expect(transaction.purchase.description == "2017-12-14T16:54:33Z")
        #expect(transaction.expires?.description == "2017-12-14T16:59:33Z")
        #expect(receipt.renewals.count == 2)
        #expect(receipt.renewals.first { $0.originalTransactionId == "1000800359115195" }?.expirationIntent == "4")
    }
}
