import MastheadJSON

/// What the `advancedCommerceInfo` of a transaction and of a renewal info both hold, read once for both.
protocol AdvancedCommerceInfoMembers: SignedObject {
    /// The transaction's or the renewal's kind of item.
    associatedtype Item: SignedObject
    var descriptors: AdvancedCommerceDescriptors? { get set }
    var items: [Item]? { get set }
    var period: String? { get set }
    var requestReferenceId: String? { get set }
    var taxCode: String? { get set }
}

extension AdvancedCommerceInfoMembers {
    /// Takes member `key` when it is one both kinds of info have; any other is ignored.
    mutating func readInfoMember(_ key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "descriptors": descriptors = try fields.object(value, "descriptors", what: "a descriptors object", AdvancedCommerceDescriptors.read)
        case "items": items = try fields.objects(value, "items", what: "an item object", Item.read)
        case "period": period = try fields.string(value, "period")
        case "requestReferenceId": requestReferenceId = try fields.string(value, "requestReferenceId")
        case "taxCode": taxCode = try fields.string(value, "taxCode")
        default: break
        }
    }
}

/// What an item of a transaction's and of a renewal info's `advancedCommerceInfo` both hold, read once for both.
protocol AdvancedCommerceItemMembers: SignedObject {
    var sku: String? { get set }
    var description: String? { get set }
    var displayName: String? { get set }
    var offer: AdvancedCommerceOffer? { get set }
    var price: Int64? { get set }
}

extension AdvancedCommerceItemMembers {
    /// Takes member `key` when it is one both kinds of item have; any other is ignored.
    mutating func readItemMember(_ key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "SKU": sku = try fields.string(value, "SKU")
        case "description": description = try fields.string(value, "description")
        case "displayName": displayName = try fields.string(value, "displayName")
        case "offer": offer = try fields.object(value, "offer", what: "an offer object", AdvancedCommerceOffer.read)
        case "price": price = try fields.int64(value, "price")
        default: break
        }
    }
}
