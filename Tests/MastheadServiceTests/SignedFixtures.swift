import Foundation
import Masthead
import MastheadFormats
import MastheadService
import MastheadTestSupport

/// Signed App Store data for the shipped catalog's app, signed with the test chain: transactions,
/// renewal infos and version 2 notification bodies.
enum SignedFixtures {
    static let bundleId = "com.example.magazine"
    static let appAppleId: Int64 = 1_234_567_890

    /// Configures a service to take in data the test chain signs for the shipped app.
    static func configure(_ configuration: inout ServiceConfiguration) {
        configuration.appStoreBundleId = bundleId
        configuration.appStoreRootCertificates = [TestChain.directory.appendingPathComponent("root.der").path]
    }

    /// Milliseconds of an RFC 3339 instant.
    static func ms(_ text: String) -> Int64 { DateText.rfc3339(text)!.milliseconds }

    /// A signed auto-renewable transaction; a revoked one may say how (`revocationType`, R5.3) and
    /// the share revoked (`revocationPercentage`, in thousandths of a percent); `extra` adds members.
    static func transaction(
        _ id: String, original: String, product: String = "com.example.monthly", from: String, to: String, signed: String,
        revoked: String? = nil, revocationType: String? = nil, revocationPercentage: Int? = nil, token: String? = nil,
        environment: String = "Production", bundleId: String = bundleId, extra: [String] = []
    ) throws -> String {
        var fields = [
            #""transactionId": "\#(id)""#, #""originalTransactionId": "\#(original)""#, #""bundleId": "\#(bundleId)""#,
            #""productId": "\#(product)""#, #""purchaseDate": \#(ms(from))"#, #""originalPurchaseDate": \#(ms(from))"#,
            #""expiresDate": \#(ms(to))"#, #""quantity": 1"#, #""type": "Auto-Renewable Subscription""#,
            #""inAppOwnershipType": "PURCHASED""#, #""signedDate": \#(ms(signed))"#, #""environment": "\#(environment)""#,
            #""transactionReason": "PURCHASE""#, #""storefront": "USA""#, #""currency": "USD""#, #""price": 4990"#,
        ]
        if let revoked { fields += [#""revocationDate": \#(ms(revoked))"#, #""revocationReason": 0"#] }
        if let revocationType { fields.append(#""revocationType": "\#(revocationType)""#) }
        if let revocationPercentage { fields.append(#""revocationPercentage": \#(revocationPercentage)"#) }
        if let token { fields.append(#""appAccountToken": "\#(token)""#) }
        return try TestChain.sign("{" + (fields + extra).joined(separator: ", ") + "}")
    }

    /// A signed purchase of a product without an expiry: a single issue (`Non-Consumable`) or a
    /// non-renewing pass (`Non-Renewing Subscription`), as a `ONE_TIME_CHARGE` carries it;
    /// `advancedCommerceInfo`, a JSON object, makes it an Advanced Commerce purchase.
    static func purchase(
        _ id: String, product: String, type: String, at: String, signed: String, revoked: String? = nil, token: String? = nil,
        advancedCommerceInfo: String? = nil
    ) throws -> String {
        var fields = [
            #""transactionId": "\#(id)""#, #""originalTransactionId": "\#(id)""#, #""bundleId": "\#(bundleId)""#,
            #""productId": "\#(product)""#, #""purchaseDate": \#(ms(at))"#, #""originalPurchaseDate": \#(ms(at))"#, #""quantity": 1"#,
            #""type": "\#(type)""#, #""inAppOwnershipType": "PURCHASED""#, #""signedDate": \#(ms(signed))"#, #""environment": "Production""#,
            #""transactionReason": "PURCHASE""#, #""storefront": "USA""#, #""currency": "USD""#, #""price": 2990"#,
        ]
        if let revoked { fields += [#""revocationDate": \#(ms(revoked))"#, #""revocationReason": 0"#] }
        if let token { fields.append(#""appAccountToken": "\#(token)""#) }
        if let advancedCommerceInfo { fields.append(#""advancedCommerceInfo": \#(advancedCommerceInfo)"#) }
        return try TestChain.sign("{" + fields.joined(separator: ", ") + "}")
    }

    /// A signed renewal info; `extra` adds members.
    static func renewal(
        original: String, product: String = "com.example.monthly", autoRenew: Bool, signed: String, environment: String = "Production",
        expirationIntent: Int? = nil, extra: [String] = []
    ) throws -> String {
        var fields = [
            #""originalTransactionId": "\#(original)""#, #""productId": "\#(product)""#, #""autoRenewProductId": "\#(product)""#,
            #""autoRenewStatus": \#(autoRenew ? 1 : 0)"#, #""isInBillingRetryPeriod": false"#, #""signedDate": \#(ms(signed))"#,
            #""environment": "\#(environment)""#,
        ]
        if let expirationIntent { fields.append(#""expirationIntent": \#(expirationIntent)"#) }
        return try TestChain.sign("{" + (fields + extra).joined(separator: ", ") + "}")
    }

    /// The signed payload of a version 2 notification.
    static func payload(
        _ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), transaction: String? = nil, renewal: String? = nil,
        signed: String, environment: String = "Production", bundleId: String = bundleId
    ) throws -> String {
        var data = [#""bundleId": "\#(bundleId)""#, #""bundleVersion": "1.0""#, #""environment": "\#(environment)""#]
        if environment == "Production" { data.append(#""appAppleId": \#(appAppleId)"#) }
        if let transaction { data.append(#""signedTransactionInfo": "\#(transaction)""#) }
        if let renewal { data.append(#""signedRenewalInfo": "\#(renewal)""#) }
        var fields = [
            #""notificationType": "\#(type)""#, #""notificationUUID": "\#(uuid)""#, #""version": "2.0""#, #""signedDate": \#(ms(signed))"#,
            #""data": {\#(data.joined(separator: ", "))}"#,
        ]
        if let subtype { fields.append(#""subtype": "\#(subtype)""#) }
        return try TestChain.sign("{" + fields.joined(separator: ", ") + "}")
    }

    /// A version 2 notification body.
    static func notification(
        _ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), transaction: String? = nil, renewal: String? = nil,
        signed: String, environment: String = "Production", bundleId: String = bundleId
    ) throws -> String {
        body(try payload(type, subtype: subtype, uuid: uuid, transaction: transaction, renewal: renewal, signed: signed, environment: environment, bundleId: bundleId))
    }

    /// `{"signedPayload": "…"}`.
    static func body(_ signedPayload: String) -> String { #"{"signedPayload": "\#(signedPayload)"}"# }

    /// `{"signedTransactions": […], "signedRenewalInfos": […]}`.
    static func transactions(_ transactions: [String], renewals: [String] = []) -> String {
        let quoted = { (tokens: [String]) in tokens.map { "\"\($0)\"" }.joined(separator: ", ") }
        return #"{"signedTransactions": [\#(quoted(transactions))], "signedRenewalInfos": [\#(quoted(renewals))]}"#
    }

    /// The token with one byte of its signature changed.
    static func tampered(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}
