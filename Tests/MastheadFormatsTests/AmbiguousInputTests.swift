import Masthead
import MastheadFormats
import MastheadJSON
import Testing

/// Receipts and notifications that replay, reorder or contradict themselves are read one way
/// only: renewal infos dated by their evidence (R2.7), one date range (R2.1), an expiry never
/// before its purchase, no repeated member names, identifiers without control characters.
struct AmbiguousInputTests {
    static func receipt(_ transactions: [String], extra: String = "") -> [UInt8] {
        Array(#"{"status": 0, "environment": "Production", "latest_receipt_info": [\#(transactions.joined(separator: ", "))]\#(extra)}"#.utf8)
    }

    static func transaction(_ id: String, original: String = "o1", purchase: String = "1582200000000", expires: String = #""expires_date_ms": "1584700000000""#) -> String {
        #"{"transaction_id": "\#(id)", "original_transaction_id": "\#(original)", "product_id": "monthly", "purchase_date_ms": "\#(purchase)", \#(expires)}"#
    }

    static func notification(top: String, pending: String, transactions: [String] = [transaction("o1")]) -> [UInt8] {
        Array(#"{"notification_type": "DID_CHANGE_RENEWAL_STATUS", "password": "s", \#(top) "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt_info": [\#(transactions.joined(separator: ", "))], "pending_renewal_info": [\#(pending)]}}"#.utf8)
    }

    // MARK: R2.7 renewal infos dated by their evidence

    /// A receipt's pending renewal info is dated by its subscription's latest transaction, not by
    /// any other subscription's, nor by when the receipt was asked for.
    @Test func R2_7_receiptRenewal_datedByItsSubscriptionsLatestPurchase() throws {
        let receipt = try ReceiptDecoder().decode(
            Self.receipt(
                [Self.transaction("o1"), Self.transaction("o1b", purchase: "1583000000000"), Self.transaction("x", original: "x", purchase: "1590000000000", expires: #""expires_date_ms": "1600000000000""#)],
                extra: #", "request_date_ms": "1599000000000", "pending_renewal_info": [{"original_transaction_id": "o1", "auto_renew_status": "0"}]"#))
        #expect(receipt.renewals.map(\.evidence) == [Instant(milliseconds: 1_583_000_000_000)])
        let grace = try ReceiptDecoder().decode(Fixtures.example("receipts/grace.json"))
        #expect(grace.renewals.map(\.evidence) == [DateText.rfc3339("2020-05-01T12:00:00Z")])
    }

    /// A version 1 notification's change date dates its renewal info.
    @Test func R2_7_notificationChangeDate_datesRenewal() throws {
        let notification = try NotificationDecoder().decode(
            Self.notification(top: #""auto_renew_status": "false", "auto_renew_status_change_date_ms": "1583500000000","#, pending: ""))
        #expect(notification.renewals.count == 1)
        #expect(notification.renewals.first?.evidence == Instant(milliseconds: 1_583_500_000_000))
        #expect(notification.renewals.first?.autoRenewOn == false)
        let text = try NotificationDecoder().decode(
            Self.notification(top: #""auto_renew_status": "false", "auto_renew_status_change_date": "2020-03-06 13:06:40 Etc/GMT","#, pending: ""))
        #expect(text.renewals.first?.evidence == Instant(milliseconds: 1_583_500_000_000))
    }

    // MARK: One body, one subscription: its renewal fields merge

    /// Top-level fields and `pending_renewal_info` of one notification describe one subscription:
    /// each field comes from the part with the newer evidence, so nothing either gives is lost.
    @Test func topLevelAndPendingRenewalFields_merge_newerChangeDateWins() throws {
        let notification = try NotificationDecoder().decode(
            Self.notification(
                top: #""auto_renew_status": "false", "auto_renew_product_id": "premium", "auto_renew_status_change_date_ms": "1583500000000","#,
                pending: #"{"original_transaction_id": "o1", "product_id": "monthly", "auto_renew_status": "1", "expiration_intent": "1", "is_in_billing_retry_period": "0"}"#))
        #expect(notification.renewals.count == 1)
        let renewal = try #require(notification.renewals.first)
        #expect(renewal.originalTransactionId == "o1")
        #expect(renewal.autoRenewOn == false)
        #expect(renewal.autoRenewProductId == "premium")
        #expect(renewal.expirationIntent == "1")
        #expect(renewal.evidence == Instant(milliseconds: 1_583_500_000_000))
    }

    /// Without a change date both parts have the same evidence (the latest transaction):
    /// `pending_renewal_info` gives the fields both have.
    @Test func topLevelAndPendingRenewalFields_merge_pendingWinsWithoutDates() throws {
        for body in [
            Self.notification(
                top: #""auto_renew_status": "false", "auto_renew_product_id": "premium", "original_transaction_id": "o1","#,
                pending: #"{"original_transaction_id": "o1", "product_id": "monthly", "auto_renew_status": "1", "expiration_intent": "2"}"#),
            Self.notification(
                top: #""auto_renew_status": "false", "auto_renew_product_id": "premium","#,
                pending: #"{"product_id": "monthly", "auto_renew_status": "1", "expiration_intent": "2"}"#),
        ] {
            let notification = try NotificationDecoder().decode(body)
            #expect(notification.renewals.count == 1)
            let renewal = try #require(notification.renewals.first)
            #expect(renewal.autoRenewOn == true)
            #expect(renewal.autoRenewProductId == "premium")
            #expect(renewal.expirationIntent == "2")
            #expect(renewal.originalTransactionId == "o1")
        }
    }

    /// The same for an iOS 6-style receipt with top-level renewal fields and pending renewal info.
    @Test func receiptTopLevelAndPendingRenewalFields_merge() throws {
        let receipt = try ReceiptDecoder().decode(
            Self.receipt(
                [Self.transaction("o1")],
                extra: #", "auto_renew_status": 0, "is_in_billing_retry_period": "1", "pending_renewal_info": {"original_transaction_id": "o1", "expiration_intent": "2", "auto_renew_status": "1"}"#))
        #expect(receipt.renewals.count == 1)
        #expect(receipt.renewals.first?.autoRenewOn == true)
        #expect(receipt.renewals.first?.isInBillingRetry == true)
        #expect(receipt.renewals.first?.expirationIntent == "2")
    }

    // MARK: R2.1 one date range for every form

    static let outOfRange: [(fields: String, path: String)] = [
        (#""purchase_date": "1969-12-31 23:59:59 Etc/GMT""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date": "0000-01-01T00:00:00Z""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date": "1970-01-01T00:30:00+01:00""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date": "9999-12-31T23:59:59-01:00""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date_ms": -1"#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": "-1""#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": "253402300800000""#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date": "253402300800000""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date_ms": "1", "cancellation_date": "1900-01-01 00:00:00 Etc/GMT""#, "$.latest_receipt_info[0].cancellation_date"),
    ]

    @Test(arguments: outOfRange)
    func R2_1_datesOutsideTheRange_areErrors_inEveryForm(bad: (fields: String, path: String)) {
        #expect {
            try ReceiptDecoder().decode(Self.receipt([#"{"transaction_id": "t", "product_id": "m", \#(bad.fields)}"#]))
        } throws: { error in
            guard case FormatError.invalidValue(let path, _, _, _) = error else { return false }
            // A minus sign in a string is not milliseconds at all; every other value is out of range.
            return path == bad.path && ("\(error)".contains("1970-01-01 through 9999-12-31") || bad.fields.contains(#""-1""#))
        }
    }

    @Test func R2_1_rangeBounds_areAccepted_inEveryForm() throws {
        for (fields, milliseconds) in [
            (#""purchase_date": "1970-01-01 00:00:00 Etc/GMT""#, Int64(0)), (#""purchase_date_ms": 0"#, 0),
            (#""purchase_date": "9999-12-31T23:59:59.999Z""#, 253_402_300_799_999), (#""purchase_date_ms": "253402300799999""#, 253_402_300_799_999),
        ] {
            let receipt = try ReceiptDecoder().decode(Self.receipt([#"{"transaction_id": "t", "product_id": "m", \#(fields)}"#]))
            #expect(receipt.transactions.first?.purchase == Instant(milliseconds: milliseconds))
        }
    }

    // MARK: An expiry before its purchase

    @Test func expiryBeforePurchase_isError_namingTheField_inReceipts() {
        let transactions = [
            Self.transaction("a"), Self.transaction("b"),
            Self.transaction("c", purchase: "1582200000000", expires: #""expires_date_ms": "1582199999999""#),
        ]
        #expect {
            try ReceiptDecoder().decode(Self.receipt(transactions))
        } throws: { error in
            guard case FormatError.expiresBeforePurchase(let path, _, _, let expires, let purchase) = error else { return false }
            return path == "$.latest_receipt_info[2].expires_date_ms" && expires == Instant(milliseconds: 1_582_199_999_999)
                && purchase == Instant(milliseconds: 1_582_200_000_000)
                && "\(error)".hasPrefix("$.latest_receipt_info[2].expires_date_ms: \"1582199999999\" (2020-02-20T11:59:59.999Z) is before purchase_date 2020-02-20T12:00:00Z")
        }
        #expect {
            try ReceiptDecoder().decode(Self.receipt([Self.transaction("a", expires: #""expires_date": "2020-02-20 11:00:00 Etc/GMT""#)]))
        } throws: { error in
            guard case FormatError.expiresBeforePurchase(let path, _, _, _, _) = error else { return false }
            return path == "$.latest_receipt_info[0].expires_date"
        }
        // An expiry equal to the purchase pays for nothing, but is not contradictory.
        #expect(throws: Never.self) {
            try ReceiptDecoder().decode(Self.receipt([Self.transaction("a", expires: #""expires_date_ms": "1582200000000""#)]))
        }
    }

    @Test func expiryBeforePurchase_isError_namingTheField_inNotifications() {
        #expect {
            try NotificationDecoder().decode(
                Self.notification(top: "", pending: "", transactions: [Self.transaction("a", expires: #""expires_date_ms": "1500000000000""#)]))
        } throws: { error in
            guard case FormatError.expiresBeforePurchase(let path, _, _, _, _) = error else { return false }
            return path == "$.unified_receipt.latest_receipt_info[0].expires_date_ms"
        }
    }

    // MARK: Repeated member names

    @Test func repeatedNames_inReceiptsAndNotifications_areErrors() {
        let twice = #"{"status": 0, "latest_receipt_info": [{"transaction_id": "a", "product_id": "m", "purchase_date_ms": "1", "transaction_id": "b"}]}"#
        #expect {
            try ReceiptDecoder().decode(Array(twice.utf8))
        } throws: { error in
            guard case FormatError.invalidJSON(.duplicateKey(let name, _, let location)) = error else { return false }
            return name == "transaction_id" && location.path == "$.latest_receipt_info[0].transaction_id"
        }
        for password in [#""password": "wrong""#, #""p\u0061ssword": "wrong""#] {
            #expect {
                try NotificationDecoder().decode(Array(#"{"notification_type": "DID_RENEW", "password": "right", \#(password)}"#.utf8))
            } throws: { error in
                guard case FormatError.invalidJSON(.duplicateKey(let name, let offset, _)) = error else { return false }
                return name == "password" && offset == 56
            }
        }
        #expect(throws: FormatError.invalidJSON(.duplicateKey(name: "password", offset: 56, at: JSONLocation(line: 1, column: 57, path: "$.password")))) {
            try NotificationDecoder().decode(Array(#"{"notification_type": "DID_RENEW", "password": "right", "password": "wrong"}"#.utf8))
        }
    }

    // MARK: Identifiers without control characters

    static let badIdentifiers: [(json: String, shown: String)] = [
        (#""100\u0000""#, #""100\u0000""#), (#""100\n""#, #""100\u000A""#), (#""100\u007f""#, #""100\u007F""#),
        (#""100\u0085""#, #""100\u0085""#), ("\"100\u{7F}\"", #""100\u007F""#), ("\"100\u{85}\"", #""100\u0085""#),
        ("\"1000000000000000\u{9F}\"", #""1000000000000000\u009F""#),
    ]

    @Test(arguments: badIdentifiers)
    func identifiersWithControlCharacters_areErrors_namingThePath(bad: (json: String, shown: String)) {
        let cases: [(body: String, path: String, notification: Bool)] = [
            (#"{"status": 0, "latest_receipt_info": [{"transaction_id": \#(bad.json), "product_id": "m", "purchase_date_ms": "1"}]}"#,
             "$.latest_receipt_info[0].transaction_id", false),
            (#"{"status": 0, "receipt": {"in_app": [{"transaction_id": "1", "original_transaction_id": \#(bad.json), "product_id": "m", "purchase_date_ms": "1"}]}}"#,
             "$.receipt.in_app[0].original_transaction_id", false),
            (#"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": \#(bad.json), "purchase_date_ms": "1"}]}"#,
             "$.latest_receipt_info[0].product_id", false),
            (#"{"status": 0, "pending_renewal_info": [{"original_transaction_id": "1", "auto_renew_product_id": \#(bad.json)}]}"#,
             "$.pending_renewal_info[0].auto_renew_product_id", false),
            (#"{"notification_type": "DID_RENEW", "original_transaction_id": \#(bad.json)}"#, "$.original_transaction_id", true),
            (#"{"notification_type": "DID_RENEW", "unified_receipt": {"pending_renewal_info": [{"original_transaction_id": \#(bad.json)}]}}"#,
             "$.unified_receipt.pending_renewal_info[0].original_transaction_id", true),
        ]
        for entry in cases {
            let bytes = Array(entry.body.utf8)
            #expect {
                if entry.notification { _ = try NotificationDecoder().decode(bytes) } else { _ = try ReceiptDecoder().decode(bytes) }
            } throws: { error in
                guard case FormatError.invalidValue(let path, _, let value, _) = error else { return false }
                return path == entry.path && value == bad.shown
            }
        }
    }

    @Test func identifiers_withEscapesOrNonASCII_butNoControls_areRead() throws {
        let receipt = try ReceiptDecoder().decode(
            Self.receipt([#"{"transaction_id": "\u0031\/2", "original_transaction_id": "été-\u00a0-ü", "product_id": "m", "purchase_date_ms": "1"}"#]))
        #expect(receipt.transactions.first?.transactionId == "1/2")
        #expect(receipt.transactions.first?.originalTransactionId == "été-\u{A0}-ü")
    }
}
