import MastheadFormats
import MastheadHTTP
import MastheadJSON

extension ServiceError {
    /// Each case without its payload, so that every code can be listed: ``examples(of:)`` of each
    /// kind, the HTTP layer's codes included. The switch in ``kind`` has no default: a new case
    /// does not build until it has a kind here, nor that kind until it has its examples.
    enum Kind: CaseIterable, Sendable {
        case http, noRoute, methodNotAllowed, unauthorized, adminTokenRequired, wrongSharedSecret, notificationRefused
        case signedDataNotConfigured, signedDataRefused, notSignedTransactions, invalidPathIdentifier, invalidAt, invalidEnvironment
        case invalidWindow, invalidLimit, invalidBodies, invalidJSON, invalidReceipt, receiptRejected, invalidIssue, receiptAlreadyInUse
        case appAccountTokenInUse, unknownUser, unknownPublication, unknownIssue, unknownAppAccountToken, notStored, storeUnavailable
        case invalidTransactionId, appStoreServerAPINotConfigured, appStoreServerAPIKeyRefused, transactionNotFound, appleSignedDataRefused
        case appStoreServerAPIFailed, tooManyRestores, restoreTimedOut, subscriptionNotInHistory, hinted
    }

    /// The case, without its payload.
    var kind: Kind {
        switch self {
        case .http: .http
        case .noRoute: .noRoute
        case .methodNotAllowed: .methodNotAllowed
        case .unauthorized: .unauthorized
        case .adminTokenRequired: .adminTokenRequired
        case .wrongSharedSecret: .wrongSharedSecret
        case .notificationRefused: .notificationRefused
        case .signedDataNotConfigured: .signedDataNotConfigured
        case .signedDataRefused: .signedDataRefused
        case .notSignedTransactions: .notSignedTransactions
        case .invalidPathIdentifier: .invalidPathIdentifier
        case .invalidAt: .invalidAt
        case .invalidEnvironment: .invalidEnvironment
        case .invalidWindow: .invalidWindow
        case .invalidLimit: .invalidLimit
        case .invalidBodies: .invalidBodies
        case .invalidJSON: .invalidJSON
        case .invalidReceipt: .invalidReceipt
        case .receiptRejected: .receiptRejected
        case .invalidIssue: .invalidIssue
        case .receiptAlreadyInUse: .receiptAlreadyInUse
        case .appAccountTokenInUse: .appAccountTokenInUse
        case .unknownUser: .unknownUser
        case .unknownPublication: .unknownPublication
        case .unknownIssue: .unknownIssue
        case .unknownAppAccountToken: .unknownAppAccountToken
        case .notStored: .notStored
        case .storeUnavailable: .storeUnavailable
        case .invalidTransactionId: .invalidTransactionId
        case .appStoreServerAPINotConfigured: .appStoreServerAPINotConfigured
        case .appStoreServerAPIKeyRefused: .appStoreServerAPIKeyRefused
        case .transactionNotFound: .transactionNotFound
        case .appleSignedDataRefused: .appleSignedDataRefused
        case .appStoreServerAPIFailed: .appStoreServerAPIFailed
        case .tooManyRestores: .tooManyRestores
        case .restoreTimedOut: .restoreTimedOut
        case .subscriptionNotInHistory: .subscriptionNotInHistory
        case .hinted: .hinted
        }
    }

    /// Errors of a kind with placeholder payloads, enough to reach every code the kind has: one
    /// for each HTTP error and each kind of path id; none for `hinted`, whose code is its error's.
    static func examples(of kind: Kind) -> [ServiceError] {
        let reason = FormatError.missingField(path: "$", line: 1)
        switch kind {
        case .http:
            let errors: [HTTPError] = [
                .invalidRequestLine, .invalidTarget, .targetTooLong(limit: 1), .unsupportedVersion, .invalidHeaderField, .obsoleteLineFolding,
                .invalidHeaderValue(name: "Host"), .missingHost, .severalHosts, .tooManyHeaderFields(limit: 1), .headerFieldTooLarge(limit: 1),
                .headersTooLarge(limit: 1), .invalidContentLength(""), .conflictingContentLength, .ambiguousFraming, .unsupportedTransferEncoding,
                .bodyTooLarge(limit: 1), .requestTimeout, .handlerTimeout, .tooManyConnections, .bodyBudgetExhausted(limit: 1),
            ]
            return errors.map { .http($0) }
        case .noRoute: return [.noRoute(method: "GET", path: "/")]
        case .methodNotAllowed: return [.methodNotAllowed(allowed: ["GET"])]
        case .unauthorized: return [.unauthorized]
        case .adminTokenRequired: return [.adminTokenRequired]
        case .wrongSharedSecret: return [.wrongSharedSecret]
        case .notificationRefused: return [.notificationRefused(reason)]
        case .signedDataNotConfigured: return [.signedDataNotConfigured]
        case .signedDataRefused: return [.signedDataRefused(reason)]
        case .notSignedTransactions: return [.notSignedTransactions]
        case .invalidPathIdentifier: return PathIdentifier.allCases.map { .invalidPathIdentifier($0, rule: "") }
        case .invalidAt: return [.invalidAt]
        case .invalidEnvironment: return [.invalidEnvironment]
        case .invalidWindow: return [.invalidWindow]
        case .invalidLimit: return [.invalidLimit(max: 1)]
        case .invalidBodies: return [.invalidBodies]
        case .invalidJSON: return [.invalidJSON(.tooLarge(bytes: 0))]
        case .invalidReceipt: return [.invalidReceipt(reason)]
        case .receiptRejected: return [.receiptRejected(.receiptRejected(status: 21000, meaning: ""))]
        case .invalidIssue: return [.invalidIssue("")]
        case .receiptAlreadyInUse: return [.receiptAlreadyInUse(environment: "", originalTransactionId: "")]
        case .appAccountTokenInUse: return [.appAccountTokenInUse("")]
        case .unknownUser: return [.unknownUser("")]
        case .unknownPublication: return [.unknownPublication("")]
        case .unknownIssue: return [.unknownIssue(publicationId: "", issueId: "")]
        case .unknownAppAccountToken: return [.unknownAppAccountToken(userId: "", token: "")]
        case .notStored: return [.notStored("", reason)]
        case .storeUnavailable: return [.storeUnavailable(reason)]
        case .invalidTransactionId: return [.invalidTransactionId("")]
        case .appStoreServerAPINotConfigured: return [.appStoreServerAPINotConfigured("")]
        case .appStoreServerAPIKeyRefused: return [.appStoreServerAPIKeyRefused("")]
        case .transactionNotFound: return [.transactionNotFound("")]
        case .appleSignedDataRefused: return [.appleSignedDataRefused("")]
        case .appStoreServerAPIFailed: return [.appStoreServerAPIFailed("")]
        case .tooManyRestores: return [.tooManyRestores(1)]
        case .restoreTimedOut: return [.restoreTimedOut("")]
        case .subscriptionNotInHistory: return [.subscriptionNotInHistory(environment: "", originalTransactionId: "")]
        case .hinted: return []
        }
    }
}
