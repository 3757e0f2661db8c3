import MastheadJSON

extension AdvancedCommerceTransactionInfo {
    /// Reads a transaction's `advancedCommerceInfo` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceTransactionInfo {
        var info = AdvancedCommerceTransactionInfo()
        for (key, value) in object.members {
            switch key {
            case "descriptors": info.descriptors = try fields.object(value, "descriptors", what: "a descriptors object", AdvancedCommerceDescriptors.read)
            case "estimatedTax": info.estimatedTax = try fields.int64(value, "estimatedTax")
            case "items": info.items = try fields.objects(value, "items", what: "an item object", AdvancedCommerceTransactionItem.read)
            case "period": info.period = try fields.string(value, "period")
            case "requestReferenceId": info.requestReferenceId = try fields.string(value, "requestReferenceId")
            case "taxCode": info.taxCode = try fields.string(value, "taxCode")
            case "taxExclusivePrice": info.taxExclusivePrice = try fields.int64(value, "taxExclusivePrice")
            case "taxRate": info.taxRate = try fields.string(value, "taxRate")
            default: break
            }
        }
        return info
    }
}

extension AdvancedCommerceTransactionItem {
    /// Reads one element of `items`.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceTransactionItem {
        var item = AdvancedCommerceTransactionItem()
        for (key, value) in object.members {
            switch key {
            case "SKU": item.sku = try fields.string(value, "SKU")
            case "description": item.description = try fields.string(value, "description")
            case "displayName": item.displayName = try fields.string(value, "displayName")
            case "offer": item.offer = try fields.object(value, "offer", what: "an offer object", AdvancedCommerceOffer.read)
            case "price": item.price = try fields.int64(value, "price")
            case "refunds": item.refunds = try fields.objects(value, "refunds", what: "a refund object", AdvancedCommerceRefund.read)
            case "revocationDate": item.revocationDate = try fields.instant(value, "revocationDate")
            default: break
            }
        }
        return item
    }
}

extension AdvancedCommerceRefund {
    /// Reads one element of `refunds`.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceRefund {
        var refund = AdvancedCommerceRefund()
        for (key, value) in object.members {
            switch key {
            case "refundAmount": refund.refundAmount = try fields.int64(value, "refundAmount")
            case "refundDate": refund.refundDate = try fields.instant(value, "refundDate")
            case "refundReason": refund.refundReason = try fields.string(value, "refundReason")
            case "refundType": refund.refundType = try fields.string(value, "refundType")
            default: break
            }
        }
        return refund
    }
}

extension AdvancedCommerceOffer {
    /// Reads an item's `offer` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceOffer {
        var offer = AdvancedCommerceOffer()
        for (key, value) in object.members {
            switch key {
            case "period": offer.period = try fields.string(value, "period")
            case "periodCount": offer.periodCount = try fields.int32(value, "periodCount")
            case "price": offer.price = try fields.int64(value, "price")
            case "reason": offer.reason = try fields.string(value, "reason")
            default: break
            }
        }
        return offer
    }
}

extension AdvancedCommerceDescriptors {
    /// Reads a `descriptors` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> AdvancedCommerceDescriptors {
        var descriptors = AdvancedCommerceDescriptors()
        for (key, value) in object.members {
            switch key {
            case "description": descriptors.description = try fields.string(value, "description")
            case "displayName": descriptors.displayName = try fields.string(value, "displayName")
            default: break
            }
        }
        return descriptors
    }
}
