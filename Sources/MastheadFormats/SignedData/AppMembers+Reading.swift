import MastheadJSON

/// The app an object is about and its server environment (Apple's `environment`, `bundleId` and
/// `appAppleId`): members that notification payloads and Server API answers share, read once for all.
protocol AppMembers: SignedObject {
    var environment: AppStoreEnvironment? { get set }
    var bundleId: String? { get set }
    var appAppleId: Int64? { get set }
}

extension AppMembers {
    /// Takes member `key` when it is `environment`, `bundleId` or `appAppleId`; any other is ignored.
    mutating func readAppMember(_ key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "environment": environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
        case "bundleId": bundleId = try fields.string(value, "bundleId")
        case "appAppleId": appAppleId = try fields.int64(value, "appAppleId")
        default: break
        }
    }
}
