public import Masthead

/// What `catalog.json` holds: the catalog, and the app whose signed data it serves, if named.
public struct CatalogDocument: Sendable {
    public var catalog: Catalog
    /// The `"app"` object; nil when the file has none.
    public var app: CatalogApp?

    /// Wraps a catalog and its app.
    public init(catalog: Catalog, app: CatalogApp? = nil) {
        self.catalog = catalog
        self.app = app
    }
}

/// The app a catalog's signed data must be for: `{"bundleId": "…", "appAppleId": 1234567890}`
/// in `catalog.json` (the App Apple ID is optional; sandbox data carries none).
public struct CatalogApp: Hashable, Sendable {
    public var bundleId: String
    /// The app's identifier in the App Store, checked on production notifications.
    public var appAppleId: Int64?

    /// Creates an app.
    public init(bundleId: String, appAppleId: Int64? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }
}
