/// The names Apple's documentation gives the error codes of the endpoints the client calls.
extension AppStoreError {
    /// The name of Apple's error code in a ``refused(endpoint:status:errorCode:errorMessage:)``
    /// answer, such as `InvalidAppAccountTokenUUIDError` for 4000183; nil for another error or an
    /// unknown code.
    public var appleErrorName: String? {
        guard case .refused(_, _, let code?, _) = self else { return nil }
        return Self.appleErrorNames[code]
    }

    /// Apple's error codes and their documented names.
    static let appleErrorNames: [Int64: String] = [
        4_000_000: "GeneralBadRequestError",
        4_000_006: "InvalidTransactionIdError",
        4_000_008: "InvalidOriginalTransactionIdError",
        4_000_043: "InvalidTransactionNotConsumableError",
        4_000_048: "AppTransactionIdNotSupportedError",
        4_000_183: "InvalidAppAccountTokenUUIDError",
        4_000_185: "FamilyTransactionNotSupportedError",
        4_000_187: "TransactionIdIsNotOriginalTransactionIdError",
        4_040_001: "AccountNotFoundError",
        4_040_003: "AppNotFoundError",
        4_040_005: "OriginalTransactionIdNotFoundError",
        4_040_010: "TransactionIdNotFoundError",
        4_040_019: "AppTransactionDoesNotExistError",
    ]
}
