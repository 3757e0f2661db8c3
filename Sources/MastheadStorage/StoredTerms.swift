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
        offer(&writer, terms.offer)
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
        offer(&writer, terms.offer)
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
        try? members(document(text), into: PurchaseTerms()) { (terms, key, value) throws(WrongType) in
            switch key {
            case "appTransactionId": terms.appTransactionId = try string(value)
            case "billingPlanType": terms.billingPlanType = try string(value)
            case "commitmentInfo":
                terms.commitment = try members(value, into: PurchaseCommitment()) { (commitment, key, value) throws(WrongType) in
                    switch key {
                    case "billingPeriodNumber": commitment.billingPeriodNumber = try int32(value)
                    case "totalBillingPeriods": commitment.totalBillingPeriods = try int32(value)
                    case "commitmentExpiresDate": commitment.expires = try instant(value)
                    case "commitmentPrice": commitment.price = try int64(value)
                    default: break
                    }
                }
            default: try offerMember(key, value, &terms.offer)
            }
        }
    }

    /// A renewal info's terms read from their stored text; nil when the text is not such an object.
    static func renewalTerms(_ text: String) -> RenewalTerms? {
        try? members(document(text), into: RenewalTerms()) { (terms, key, value) throws(WrongType) in
            switch key {
            case "appAccountToken": terms.appAccountToken = try string(value)
            case "appTransactionId": terms.appTransactionId = try string(value)
            case "eligibleWinBackOfferIds": terms.eligibleWinBackOfferIds = try strings(value)
            case "renewalBillingPlanType": terms.renewalBillingPlanType = try string(value)
            case "commitmentInfo":
                terms.commitment = try members(value, into: RenewalCommitment()) { (commitment, key, value) throws(WrongType) in
                    switch key {
                    case "commitmentAutoRenewProductId": commitment.autoRenewProductId = try string(value)
                    case "commitmentAutoRenewStatus": commitment.autoRenewStatus = try int32(value)
                    case "commitmentRenewalBillingPlanType": commitment.renewalBillingPlanType = try string(value)
                    case "commitmentRenewalDate": commitment.renewalDate = try instant(value)
                    case "commitmentRenewalPrice": commitment.renewalPrice = try int64(value)
                    default: break
                    }
                }
            default: try offerMember(key, value, &terms.offer)
            }
        }
    }

    /// Writes the offer's fields given.
    private static func offer(_ writer: inout JSONWriter, _ offer: TermsOffer) {
        number(&writer, "offerType", offer.type.map(Int64.init))
        text(&writer, "offerIdentifier", offer.identifier)
        text(&writer, "offerPeriod", offer.period)
    }

    /// Takes member `key` into `offer` when it is one of the offer's; any other is ignored.
    private static func offerMember(_ key: String?, _ value: JSONValue, _ offer: inout TermsOffer) throws(WrongType) {
        switch key {
        case "offerType": offer.type = try int32(value)
        case "offerIdentifier": offer.identifier = try string(value)
        case "offerPeriod": offer.period = try string(value)
        default: break
        }
    }

    /// A stored member of the wrong JSON type: the stored terms are not read.
    private struct WrongType: Error {}

    /// The top-level value of stored text, nil when it is not JSON.
    private static func document(_ text: String) -> JSONValue? { try? JSONDocument(parsing: text, maxDepth: 4).root }

    /// `empty` with every member of `value` taken by `member`, in order.
    /// - Throws: ``WrongType`` when `value` is not an object, or `member` refuses a member.
    private static func members<Value>(
        _ value: JSONValue?, into empty: Value, _ member: (inout Value, String?, JSONValue) throws(WrongType) -> Void
    ) throws(WrongType) -> Value {
        guard let value, value.kind == .object else { throw WrongType() }
        var result = empty
        for (key, value) in value.members { try member(&result, key.string, value) }
        return result
    }

    private static func string(_ value: JSONValue) throws(WrongType) -> String {
        guard let text = value.string else { throw WrongType() }
        return text
    }

    private static func strings(_ value: JSONValue) throws(WrongType) -> [String] {
        guard value.kind == .array else { throw WrongType() }
        var texts: [String] = []
        for element in value.elements { texts.append(try string(element)) }
        return texts
    }

    private static func int64(_ value: JSONValue) throws(WrongType) -> Int64 {
        guard let number = value.int64 else { throw WrongType() }
        return number
    }

    private static func int32(_ value: JSONValue) throws(WrongType) -> Int32 {
        guard let number = Int32(exactly: try int64(value)) else { throw WrongType() }
        return number
    }

    private static func instant(_ value: JSONValue) throws(WrongType) -> Instant { Instant(milliseconds: try int64(value)) }

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
