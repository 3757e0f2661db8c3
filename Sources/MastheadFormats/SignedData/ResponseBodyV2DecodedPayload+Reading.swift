public import MastheadJSON

extension ResponseBodyV2DecodedPayload {
    /// Parses and reads a version 2 notification's payload: the JSON between the dots of its
    /// `signedPayload`, once its signature has been verified.
    /// - Throws: ``FormatError`` naming the JSON path and line of a field of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        let root = try JSONValue.parsed(bytes)
        try self.init(root)
    }

    /// Reads a version 2 notification's payload from a parsed value found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) {
        self = try value.withUnsafeValue { (node) throws(FormatError) in
            try ResponseBodyV2DecodedPayload.read(node, SignedFields(node, path: path, what: "a notification payload object"))
        }
    }

    /// Reads every member of a notification payload object; unknown members are ignored.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> ResponseBodyV2DecodedPayload {
        var payload = ResponseBodyV2DecodedPayload()
        for (key, value) in object.members {
            switch key {
            case "notificationType": payload.notificationType = try fields.string(value, "notificationType").map(NotificationTypeV2.init(rawValue:))
            case "subtype": payload.subtype = try fields.string(value, "subtype").map(NotificationSubtype.init(rawValue:))
            case "notificationUUID": payload.notificationUUID = try fields.uuid(value, "notificationUUID")
            case "data": payload.data = try fields.object(value, "data", what: "a notification data object", NotificationData.read)
            case "version": payload.version = try fields.string(value, "version")
            case "signedDate": payload.signedDate = try fields.instant(value, "signedDate")
            case "summary": payload.summary = try fields.object(value, "summary", what: "a summary object", NotificationSummary.read)
            case "externalPurchaseToken":
                payload.externalPurchaseToken = try fields.object(
                    value, "externalPurchaseToken", what: "an external purchase token object", ExternalPurchaseToken.read)
            case "appData": payload.appData = try fields.object(value, "appData", what: "an app data object", NotificationAppData.read)
            default: break
            }
        }
        return payload
    }
}

extension NotificationData {
    /// Reads a notification's `data` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> NotificationData {
        var data = NotificationData()
        for (key, value) in object.members {
            switch key {
            case "environment": data.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "appAppleId": data.appAppleId = try fields.int64(value, "appAppleId")
            case "bundleId": data.bundleId = try fields.string(value, "bundleId")
            case "bundleVersion": data.bundleVersion = try fields.string(value, "bundleVersion")
            case "signedTransactionInfo": data.signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
            case "signedRenewalInfo": data.signedRenewalInfo = try fields.string(value, "signedRenewalInfo")
            case "status": data.status = try fields.int32(value, "status").map(AppStoreSubscriptionStatus.init(rawValue:))
            case "consumptionRequestReason":
                data.consumptionRequestReason = try fields.string(value, "consumptionRequestReason").map(ConsumptionRequestReason.init(rawValue:))
            default: break
            }
        }
        return data
    }
}

extension NotificationSummary {
    /// Reads a notification's `summary` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> NotificationSummary {
        var summary = NotificationSummary()
        for (key, value) in object.members {
            switch key {
            case "environment": summary.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "appAppleId": summary.appAppleId = try fields.int64(value, "appAppleId")
            case "bundleId": summary.bundleId = try fields.string(value, "bundleId")
            case "productId": summary.productId = try fields.identifier(value, "productId")
            case "requestIdentifier": summary.requestIdentifier = try fields.string(value, "requestIdentifier")
            case "storefrontCountryCodes": summary.storefrontCountryCodes = try fields.strings(value, "storefrontCountryCodes")
            case "succeededCount": summary.succeededCount = try fields.int64(value, "succeededCount")
            case "failedCount": summary.failedCount = try fields.int64(value, "failedCount")
            default: break
            }
        }
        return summary
    }
}

extension ExternalPurchaseToken {
    /// Reads a notification's `externalPurchaseToken` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> ExternalPurchaseToken {
        var token = ExternalPurchaseToken()
        for (key, value) in object.members {
            switch key {
            case "externalPurchaseId": token.externalPurchaseId = try fields.string(value, "externalPurchaseId")
            case "tokenCreationDate": token.tokenCreationDate = try fields.instant(value, "tokenCreationDate")
            case "appAppleId": token.appAppleId = try fields.int64(value, "appAppleId")
            case "bundleId": token.bundleId = try fields.string(value, "bundleId")
            default: break
            }
        }
        return token
    }
}

extension NotificationAppData {
    /// Reads a notification's `appData` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> NotificationAppData {
        var app = NotificationAppData()
        for (key, value) in object.members {
            switch key {
            case "appAppleId": app.appAppleId = try fields.int64(value, "appAppleId")
            case "bundleId": app.bundleId = try fields.string(value, "bundleId")
            case "environment": app.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "signedAppTransactionInfo": app.signedAppTransactionInfo = try fields.string(value, "signedAppTransactionInfo")
            default: break
            }
        }
        return app
    }
}
