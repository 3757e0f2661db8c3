import MastheadJSON

extension AdvancedCommerceRenewalInfo {
    /// Reads a renewal info's `advancedCommerceInfo` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceRenewalInfo {
        var info = AdvancedCommerceRenewalInfo()
        for (key, value) in object.members {
            switch key {
            case "consistencyToken": info.consistencyToken = try fields.string(value, "consistencyToken")
            case "descriptors": info.descriptors = try fields.object(value, "descriptors", what: "a descriptors object", AdvancedCommerceDescriptors.read)
            case "items": info.items = try fields.objects(value, "items", what: "an item object", AdvancedCommerceRenewalItem.read)
            case "period": info.period = try fields.string(value, "period")
            case "requestReferenceId": info.requestReferenceId = try fields.string(value, "requestReferenceId")
            case "taxCode": info.taxCode = try fields.string(value, "taxCode")
            default: break
            }
        }
        return info
    }
}

extension AdvancedCommerceRenewalItem {
    /// Reads one element of `items`.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceRenewalItem {
        var item = AdvancedCommerceRenewalItem()
        for (key, value) in object.members {
            switch key {
            case "SKU": item.sku = try fields.string(value, "SKU")
            case "description": item.description = try fields.string(value, "description")
            case "displayName": item.displayName = try fields.string(value, "displayName")
            case "offer": item.offer = try fields.object(value, "offer", what: "an offer object", AdvancedCommerceOffer.read)
            case "price": item.price = try fields.int64(value, "price")
            case "priceIncreaseInfo":
                item.priceIncreaseInfo = try fields.object(
                    value, "priceIncreaseInfo", what: "a price increase info object", AdvancedCommercePriceIncreaseInfo.read)
            default: break
            }
        }
        return item
    }
}

extension AdvancedCommercePriceIncreaseInfo {
    /// Reads an item's `priceIncreaseInfo` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommercePriceIncreaseInfo {
        var info = AdvancedCommercePriceIncreaseInfo()
        for (key, value) in object.members {
            switch key {
            case "dependentSKUs": info.dependentSKUs = try fields.strings(value, "dependentSKUs")
            case "price": info.price = try fields.int64(value, "price")
            case "status": info.status = try fields.string(value, "status")
            default: break
            }
        }
        return info
    }
}
