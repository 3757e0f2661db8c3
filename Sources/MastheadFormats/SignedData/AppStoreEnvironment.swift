/// The server environment of signed data (Apple's `environment`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `environment` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple's sandbox: test purchases.
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// The App Store: real purchases.
    public static let production = AppStoreEnvironment(rawValue: "Production")
    /// StoreKit testing in Xcode, signed by Xcode's own certificate.
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// Apple's local unit tests of its server library.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")
}
