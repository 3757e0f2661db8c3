import Masthead
import MastheadJSON

/// A transaction's or renewal info's terms as the store keeps them: one JSON object in a
/// nullable text column, with Apple's names for the fields given and none for the absent
/// (instants in milliseconds since 1970). Reading ignores members it does not know, so that
/// terms a later version stores stay readable; a member of the wrong type is an error.
enum StoredTerms {
    /// The text stored for a transaction's terms.
    static func text(_ terms: PurchaseTerms) -> String {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        number(&writer, "offerType", terms.offerType.map(Int64.init))
        text(&writer, "offerIdentifier", terms.offerIdentifier)
        text(&writer, "offerPeriod", terms.offerPeriod)
        text(&writer, "appTransactionId", terms.appTransactionId)
        text(&writer, "billingPlanType", terms.billingPlanType)
        if let commitment = terms.commitment {
            writer.key("commitmentInfo")
            writer.beginObject()
            number(&writer, "billingPeriodNumber", commitment.billingPeriodNumber.map(Int64.init))
            number(&writer, "totalBillingPeriods", commitment.totalBillingPeriods.map(Int64.init))
            number(&writer, "commitmentExpiresDate", commitment.expires?.milliseconds)
            number(&writer, "commitmentPrice", commitment.price)
            writer.endObject()
        }
        writer.endObject()
        return writer.text
    }

    /// The text stored for a renewal info's terms.
    static func text(_ terms: RenewalTerms) -> String {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        text(&writer, "appAccountToken", terms.appAccountToken)
        text(&writer, "appTransactionId", terms.appTransactionId)
        number(&writer, "offerType", terms.offerType.map(Int64.init))
        text(&writer, "offerIdentifier", terms.offerIdentifier)
        text(&writer, "offerPeriod", terms.offerPeriod)
        if let ids = terms.eligibleWinBackOfferIds {
            writer.key("eligibleWinBackOfferIds")
            writer.beginArray()
            for id in ids { writer.string(id) }
            writer.endArray()
        }
        text(&writer, "renewalBillingPlanType", terms.renewalBillingPlanType)
        if let commitment = terms.commitment {
            writer.key("commitmentInfo")
            writer.beginObject()
            text(&writer, "commitmentAutoRenewProductId", commitment.autoRenewProductId)
            number(&writer, "commitmentAutoRenewStatus", commitment.autoRenewStatus.map(Int64.init))
            text(&writer, "commitmentRenewalBillingPlanType", commitment.renewalBillingPlanType)
            number(&writer, "commitmentRenewalDate", commitment.renewalDate?.milliseconds)
            number(&writer, "commitmentRenewalPrice", commitment.renewalPrice)
            writer.endObject()
        }
        writer.endObject()
        return writer.text
    }

    /// A transaction's terms read from their stored text; nil when the text is not such an object.
    static func purchaseTerms(_ text: String) -> PurchaseTerms? {
        guard let object = object(text) else { return nil }
        var terms = PurchaseTerms()
        for (key, value) in object.members {
            switch key.string {
            case "offerType": guard let number = int32(value) else { return nil }; terms.offerType = number
            case "offerIdentifier": guard let string = value.string else { return nil }; terms.offerIdentifier = string
            case "offerPeriod": guard let string = value.string else { return nil }; terms.offerPeriod = string
            case "appTransactionId": guard let string = value.string else { return nil }; terms.appTransactionId = string
            case "billingPlanType": guard let string = value.string else { return nil }; terms.billingPlanType = string
            case "commitmentInfo":
                guard value.kind == .object else { return nil }
                var commitment = PurchaseCommitment()
                for (key, value) in value.members {
                    switch key.string {
                    case "billingPeriodNumber": guard let number = int32(value) else { return nil }; commitment.billingPeriodNumber = number
                    case "totalBillingPeriods": guard let number = int32(value) else { return nil }; commitment.totalBillingPeriods = number
                    case "commitmentExpiresDate": guard let number = value.int64 else { return nil }; commitment.expires = Instant(milliseconds: number)
                    case "commitmentPrice": guard let number = value.int64 else { return nil }; commitment.price = number
                    default: continue
                    }
                }
                terms.commitment = commitment
            default: continue
            }
        }
        return terms
    }

    /// A renewal info's terms read from their stored text; nil when the text is not such an object.
    static func renewalTerms(_ text: String) -> RenewalTerms? {
        guard let object = object(text) else { return nil }
        var terms = RenewalTerms()
        for (key, value) in object.members {
            switch key.string {
            case "appAccountToken": guard let string = value.string else { return nil }; terms.appAccountToken = string
            case "appTransactionId": guard let string = value.string else { return nil }; terms.appTransactionId = string
            case "offerType": guard let number = int32(value) else { return nil }; terms.offerType = number
            case "offerIdentifier": guard let string = value.string else { return nil }; terms.offerIdentifier = string
            case "offerPeriod": guard let string = value.string else { return nil }; terms.offerPeriod = string
            case "eligibleWinBackOfferIds":
                guard value.kind == .array else { return nil }
                var ids: [String] = []
                for element in value.elements {
                    guard let id = element.string else { return nil }
                    ids.append(id)
                }
                terms.eligibleWinBackOfferIds = ids
            case "renewalBillingPlanType": guard let string = value.string else { return nil }; terms.renewalBillingPlanType = string
            case "commitmentInfo":
                guard value.kind == .object else { return nil }
                var commitment = RenewalCommitment()
                for (key, value) in value.members {
                    switch key.string {
                    case "commitmentAutoRenewProductId": guard let string = value.string else { return nil }; commitment.autoRenewProductId = string
                    case "commitmentAutoRenewStatus": guard let number = int32(value) else { return nil }; commitment.autoRenewStatus = number
                    case "commitmentRenewalBillingPlanType":
                        guard let string = value.string else { return nil }
                        commitment.renewalBillingPlanType = string
                    case "commitmentRenewalDate": guard let number = value.int64 else { return nil }; commitment.renewalDate = Instant(milliseconds: number)
                    case "commitmentRenewalPrice": guard let number = value.int64 else { return nil }; commitment.renewalPrice = number
                    default: continue
                    }
                }
                terms.commitment = commitment
            default: continue
            }
        }
        return terms
    }

    private static func object(_ text: String) -> JSONValue? {
        guard let document = try? JSONDocument(parsing: text, maxDepth: 4), document.root.kind == .object else { return nil }
        return document.root
    }

    private static func int32(_ value: JSONValue) -> Int32? { value.int64.flatMap { Int32(exactly: $0) } }

    private static func text(_ writer: inout JSONWriter, _ name: String, _ value: String?) {
        guard let value else { return }
        writer.field(name, value)
    }

    private static func number(_ writer: inout JSONWriter, _ name: String, _ value: Int64?) {
        guard let value else { return }
        writer.field(name, value)
    }
}

extension StoreRow {
    /// Column `index` as a transaction's stored terms, or nil for NULL.
    func optionalPurchaseTerms(_ index: Int32) throws(Failure) -> PurchaseTerms? {
        guard let text = try optionalText(index) else { return nil }
        guard let terms = StoredTerms.purchaseTerms(text) else { throw unexpected(index, value: text, expected: "purchase terms as a JSON object or NULL") }
        return terms
    }

    /// Column `index` as a renewal info's stored terms, or nil for NULL.
    func optionalRenewalTerms(_ index: Int32) throws(Failure) -> RenewalTerms? {
        guard let text = try optionalText(index) else { return nil }
        guard let terms = StoredTerms.renewalTerms(text) else { throw unexpected(index, value: text, expected: "renewal terms as a JSON object or NULL") }
        return terms
    }
}
