import MastheadJSON

extension AdvancedCommerceRenewalInfo: AdvancedCommerceInfoMembers {
    /// Reads one member of a renewal info's `advancedCommerceInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "consistencyToken": consistencyToken = try fields.string(value, "consistencyToken")
        default: try readInfoMember(key, value, fields)
        }
    }
}

extension AdvancedCommerceRenewalItem: AdvancedCommerceItemMembers {
    /// Reads one member of an element of a renewal info's `items`.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "priceIncreaseInfo":
            priceIncreaseInfo = try fields.object(
                value, "priceIncreaseInfo", what: "a price increase info object", AdvancedCommercePriceIncreaseInfo.read)
        default: try readItemMember(key, value, fields)
        }
    }
}

extension AdvancedCommercePriceIncreaseInfo: SignedObject {
    /// Reads one member of an item's `priceIncreaseInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "dependentSKUs": dependentSKUs = try fields.strings(value, "dependentSKUs")
        case "price": price = try fields.int64(value, "price")
        case "status": status = try fields.string(value, "status")
        default: break
        }
    }
}
