import MastheadJSON

extension AdvancedCommerceTransactionInfo: AdvancedCommerceInfoMembers {
    /// Reads one member of a transaction's `advancedCommerceInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "estimatedTax": estimatedTax = try fields.int64(value, "estimatedTax")
        case "taxExclusivePrice": taxExclusivePrice = try fields.int64(value, "taxExclusivePrice")
        case "taxRate": taxRate = try fields.string(value, "taxRate")
        default: try readInfoMember(key, value, fields)
        }
    }
}

extension AdvancedCommerceTransactionItem: AdvancedCommerceItemMembers {
    /// Reads one member of an element of a transaction's `items`.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "refunds": refunds = try fields.objects(value, "refunds", what: "a refund object", AdvancedCommerceRefund.read)
        case "revocationDate": revocationDate = try fields.instant(value, "revocationDate")
        default: try readItemMember(key, value, fields)
        }
    }
}

extension AdvancedCommerceRefund: SignedObject {
    /// Reads one member of an element of `refunds`.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "refundAmount": refundAmount = try fields.int64(value, "refundAmount")
        case "refundDate": refundDate = try fields.instant(value, "refundDate")
        case "refundReason": refundReason = try fields.string(value, "refundReason")
        case "refundType": refundType = try fields.string(value, "refundType")
        default: break
        }
    }
}

extension AdvancedCommerceOffer: SignedObject {
    /// Reads one member of an item's `offer` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "period": period = try fields.string(value, "period")
        case "periodCount": periodCount = try fields.int32(value, "periodCount")
        case "price": price = try fields.int64(value, "price")
        case "reason": reason = try fields.string(value, "reason")
        default: break
        }
    }
}

extension AdvancedCommerceDescriptors: SignedObject {
    /// Reads one member of a `descriptors` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "description": description = try fields.string(value, "description")
        case "displayName": displayName = try fields.string(value, "displayName")
        default: break
        }
    }
}
