import MastheadJSON

extension ResponseBodyV2DecodedPayload: SignedRoot {
    /// How a version 2 notification's payload is read (``AppStoreDocument/init(decoding:)``: the JSON
    /// between the dots of its `signedPayload`, once its signature has been verified).
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a notification payload object")

    /// Reads one member of a notification payload object; an unknown member is ignored.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "notificationType": notificationType = try fields.string(value, "notificationType").map(NotificationTypeV2.init(rawValue:))
        case "subtype": subtype = try fields.string(value, "subtype").map(NotificationSubtype.init(rawValue:))
        case "notificationUUID": notificationUUID = try fields.uuid(value, "notificationUUID")
        case "data": data = try fields.object(value, "data", what: "a notification data object", NotificationData.read)
        case "version": version = try fields.string(value, "version")
        case "signedDate": signedDate = try fields.instant(value, "signedDate")
        case "summary": summary = try fields.object(value, "summary", what: "a summary object", NotificationSummary.read)
        case "externalPurchaseToken":
            externalPurchaseToken = try fields.object(
                value, "externalPurchaseToken", what: "an external purchase token object", ExternalPurchaseToken.read)
        case "appData": appData = try fields.object(value, "appData", what: "an app data object", NotificationAppData.read)
        default: break
        }
    }
}

extension NotificationData: AppMembers {
    /// Reads one member of a notification's `data` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "bundleVersion": bundleVersion = try fields.string(value, "bundleVersion")
        case "signedTransactionInfo": signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
        case "signedRenewalInfo": signedRenewalInfo = try fields.string(value, "signedRenewalInfo")
        case "status": status = try fields.int32(value, "status").map(AppStoreSubscriptionStatus.init(rawValue:))
        case "consumptionRequestReason":
            consumptionRequestReason = try fields.string(value, "consumptionRequestReason").map(ConsumptionRequestReason.init(rawValue:))
        default: try readAppMember(key, value, fields)
        }
    }
}

extension NotificationSummary: AppMembers {
    /// Reads one member of a notification's `summary` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "productId": productId = try fields.identifier(value, "productId")
        case "requestIdentifier": requestIdentifier = try fields.string(value, "requestIdentifier")
        case "storefrontCountryCodes": storefrontCountryCodes = try fields.strings(value, "storefrontCountryCodes")
        case "succeededCount": succeededCount = try fields.int64(value, "succeededCount")
        case "failedCount": failedCount = try fields.int64(value, "failedCount")
        default: try readAppMember(key, value, fields)
        }
    }
}

extension ExternalPurchaseToken: SignedObject {
    /// Reads one member of a notification's `externalPurchaseToken` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "externalPurchaseId": externalPurchaseId = try fields.string(value, "externalPurchaseId")
        case "tokenCreationDate": tokenCreationDate = try fields.instant(value, "tokenCreationDate")
        case "appAppleId": appAppleId = try fields.int64(value, "appAppleId")
        case "bundleId": bundleId = try fields.string(value, "bundleId")
        default: break
        }
    }
}

extension NotificationAppData: AppMembers {
    /// Reads one member of a notification's `appData` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedAppTransactionInfo": signedAppTransactionInfo = try fields.string(value, "signedAppTransactionInfo")
        default: try readAppMember(key, value, fields)
        }
    }
}
