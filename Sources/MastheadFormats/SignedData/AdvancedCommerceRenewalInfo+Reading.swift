import MastheadJSON

extension AdvancedCommerceRenewalInfo: SignedObject {
    /// Reads one member of a renewal info's `advancedCommerceInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "consistencyToken": consistencyToken = try fields.string(value, "consistencyToken")
        case "descriptors": descriptors = try fields.object(value, "descriptors", what: "a descriptors object", AdvancedCommerceDescriptors.read)
        case "items": items = try fields.objects(value, "items", what: "an item object", AdvancedCommerceRenewalItem.read)
        case "period": period = try fields.string(value, "period")
        case "requestReferenceId": requestReferenceId = try fields.string(value, "requestReferenceId")
        case "taxCode": taxCode = try fields.string(value, "taxCode")
        default: break
        }
    }
}

extension AdvancedCommerceRenewalItem: SignedObject {
    /// Reads one member of an element of `items`.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "SKU": sku = try fields.string(value, "SKU")
        case "description": description = try fields.string(value, "description")
        case "displayName": displayName = try fields.string(value, "displayName")
        case "offer": offer = try fields.object(value, "offer", what: "an offer object", AdvancedCommerceOffer.read)
        case "price": price = try fields.int64(value, "price")
        case "priceIncreaseInfo":
            priceIncreaseInfo = try fields.object(
                value, "priceIncreaseInfo", what: "a price increase info object", AdvancedCommercePriceIncreaseInfo.read)
        default: break
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
