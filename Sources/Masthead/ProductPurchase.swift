/// One of a user's transactions together with the catalog product it bought.
struct ProductPurchase {
    var transaction: Transaction
    var product: Product
}
