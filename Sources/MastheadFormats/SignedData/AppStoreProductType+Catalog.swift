public import Masthead

extension AppStoreProductType {
    /// How the App Store sells a product of the catalog's `type`: an auto-renewable or
    /// non-renewing subscription as such; a free subscription and a single issue as a
    /// non-consumable (bought once, kept). No catalog type is sold as a consumable.
    public static func sold(as type: ProductType) -> AppStoreProductType {
        switch type {
        case .autoRenewable: .autoRenewableSubscription
        case .nonRenewing: .nonRenewingSubscription
        case .free, .issue: .nonConsumable
        }
    }
}
