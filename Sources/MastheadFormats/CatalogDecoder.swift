public import Masthead
import MastheadJSON

/// Reads `catalog.json` (R3), reporting every problem with its JSON path.
///
/// A key the format does not define is a problem too, with the nearest known key when one is
/// close (`"windw"`: did you mean `"window"`?): a misspelt optional key would otherwise change
/// what readers get without a word. An optional `"app"` object,
/// `{"bundleId": "…", "appAppleId": 1234567890}`, names the app whose signed data the catalog
/// serves (``CatalogDocument/app``). A product may name the SKU it is sold by through the
/// Advanced Commerce API (`"sku"`), unique across the catalog; a product id may not begin with
/// `sku:`, which names Advanced Commerce SKUs the catalog does not know
/// (``SignedDataDecoder/unknownSKUPrefix``), nor with `googlePlay:`, which names Google Play
/// products it does not know. A product may name the Google Play ids it is sold by
/// (`"googlePlay"`, rule R18).
public struct CatalogDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Parses and checks a catalog; `file` names it in errors.
    public func decode(_ bytes: [UInt8], file: String = "catalog.json") throws(FormatError) -> Catalog {
        try decodeDocument(bytes, file: file).catalog
    }

    /// Parses and checks a catalog and its `"app"` object; `file` names it in errors.
    public func decodeDocument(_ bytes: [UInt8], file: String = "catalog.json") throws(FormatError) -> CatalogDocument {
        let root = try JSONValue.parsed(bytes)
        var reader = Reader()
        let catalog = reader.read(root)
        let app = root.kind == .object ? reader.readApp(root) : nil
        guard reader.problems.isEmpty, let catalog else { throw FormatError.invalidCatalog(file: file, problems: reader.problems) }
        return CatalogDocument(catalog: catalog, app: app)
    }

    /// A Google Play (product id, base plan) by its exact bytes; an empty base plan stands for
    /// "some base plan" of the product, nil for a one-time product.
    private struct PlayKey: Hashable {
        var productId: ExactKey
        var basePlanId: ExactKey?
    }

    /// Collects problems while reading, so that one run reports them all.
    private struct Reader {
        var problems: [CatalogProblem] = []

        mutating func problem(_ path: String, _ message: String) {
            problems.append(CatalogProblem(path: path, message: message))
        }

        mutating func read(_ root: JSONValue) -> Catalog? {
            guard root.kind == .object else {
                problem("$", "expected an object with \"publications\" and \"products\"")
                return nil
            }
            unknownKeys(root, "$", known: ["publications", "products", "app"])
            var publications: [Publication] = []
            // Ids are their exact bytes: two spellings of one name are two ids.
            var seenPublications: Set<ExactKey> = []
            if let list = array(root, "publications", "$") {
                for (index, value) in list.elements.enumerated() {
                    let path = JSONPath.element("$.publications", index)
                    guard let publication = readPublication(value, path) else { continue }
                    if !seenPublications.insert(ExactKey(publication.id)).inserted {
                        problem(JSONPath.member(path, "id"), "duplicate publication id \"\(publication.id)\"")
                    }
                    publications.append(publication)
                }
            }
            var products: [Product] = []
            var seenProducts: Set<ExactKey> = []
            var skuPaths: [ExactKey: String] = [:]
            var playPaths: [PlayKey: String] = [:]
            let byId = Dictionary(publications.map { (ExactKey($0.id), $0) }, uniquingKeysWith: { first, _ in first })
            if let list = array(root, "products", "$") {
                for (index, value) in list.elements.enumerated() {
                    let path = JSONPath.element("$.products", index)
                    guard let product = readProduct(value, path, publications: byId) else { continue }
                    if !seenProducts.insert(ExactKey(product.productId)).inserted {
                        problem(JSONPath.member(path, "productId"), "duplicate product id \"\(product.productId)\"")
                    }
                    if let sku = product.sku {
                        let skuPath = JSONPath.member(path, "sku")
                        if let first = skuPaths[ExactKey(sku)] {
                            problem(skuPath, "duplicate SKU \"\(sku)\", named first at \(first)")
                        } else {
                            skuPaths[ExactKey(sku)] = skuPath
                        }
                    }
                    if let ids = product.googlePlay { checkGooglePlay(ids, JSONPath.member(path, "googlePlay"), &playPaths) }
                    products.append(product)
                }
            }
            return Catalog(publications: publications, products: products)
        }

        /// Reports a Play (product id, base plan) that another product already names, and a Play
        /// product id named both with base plans (a subscription) and without (a one-time
        /// product): Google's product ids are unique across both kinds.
        mutating func checkGooglePlay(_ ids: GooglePlayProductIds, _ path: String, _ seen: inout [PlayKey: String]) {
            let oneTime = PlayKey(productId: ExactKey(ids.productId), basePlanId: nil)
            let anySubscription = PlayKey(productId: ExactKey(ids.productId), basePlanId: ExactKey(""))
            let productIdPath = JSONPath.member(path, "productId")
            if ids.basePlanIds.isEmpty {
                if let first = seen[oneTime] {
                    problem(productIdPath, "Google Play product \"\(ids.productId)\" is named first at \(first)")
                } else if let first = seen[anySubscription] {
                    problem(productIdPath, "Google Play product \"\(ids.productId)\" is a subscription with base plans at \(first)")
                } else {
                    seen[oneTime] = productIdPath
                }
                return
            }
            if let first = seen[oneTime] {
                problem(productIdPath, "Google Play product \"\(ids.productId)\" is a one-time product at \(first)")
                return
            }
            if seen[anySubscription] == nil { seen[anySubscription] = productIdPath }
            for (index, basePlanId) in ids.basePlanIds.enumerated() {
                let key = PlayKey(productId: ExactKey(ids.productId), basePlanId: ExactKey(basePlanId))
                let basePlanPath = JSONPath.element(JSONPath.member(path, "basePlanIds"), index)
                if let first = seen[key] {
                    problem(basePlanPath, "Google Play base plan \"\(ids.productId)\"/\"\(basePlanId)\" buys another product too, named first at \(first)")
                } else {
                    seen[key] = basePlanPath
                }
            }
        }

        mutating func readPublication(_ value: JSONValue, _ path: String) -> Publication? {
            guard value.kind == .object else {
                problem(path, "expected a publication object")
                return nil
            }
            unknownKeys(value, path, known: ["id", "title", "issues"])
            let id = string(value, "id", path)
            let title = optionalString(value, "title", path)
            var issues: [Issue] = []
            var seen: Set<ExactKey> = []
            if let list = array(value, "issues", path) {
                for (index, issueValue) in list.elements.enumerated() {
                    let issuePath = JSONPath.element(JSONPath.member(path, "issues"), index)
                    guard issueValue.kind == .object else {
                        problem(issuePath, "expected an issue object")
                        continue
                    }
                    unknownKeys(issueValue, issuePath, known: ["id", "title", "published", "free"])
                    let issueId = string(issueValue, "id", issuePath)
                    let issueTitle = optionalString(issueValue, "title", issuePath)
                    let published = date(issueValue, "published", issuePath)
                    let free = optionalBool(issueValue, "free", issuePath) ?? false
                    guard let issueId, let published else { continue }
                    if !seen.insert(ExactKey(issueId)).inserted {
                        problem(JSONPath.member(issuePath, "id"), "duplicate issue id \"\(issueId)\" in this publication")
                        continue
                    }
                    issues.append(Issue(id: issueId, title: issueTitle, published: published, isFree: free))
                }
            }
            guard let id else { return nil }
            return Publication(id: id, title: title, issues: issues)
        }

        mutating func readProduct(_ value: JSONValue, _ path: String, publications: [ExactKey: Publication]) -> Product? {
            guard value.kind == .object else {
                problem(path, "expected a product object")
                return nil
            }
            unknownKeys(
                value, path, known: ["productId", "type", "publications", "access", "window", "duration", "publication", "issue", "sku", "googlePlay"])
            var productId = string(value, "productId", path)
            if let id = productId, id.utf8.starts(with: SignedDataDecoder.unknownSKUPrefix.utf8) {
                problem(
                    JSONPath.member(path, "productId"),
                    "product id \"\(id)\" begins with \"\(SignedDataDecoder.unknownSKUPrefix)\", which names Advanced Commerce SKUs the catalog does not know; name the SKU with \"sku\"")
                productId = nil
            }
            if let id = productId, id.utf8.starts(with: GooglePlayOrder.transactionIdPrefix.utf8) {
                problem(
                    JSONPath.member(path, "productId"),
                    "product id \"\(id)\" begins with \"\(GooglePlayOrder.transactionIdPrefix)\", which names Google Play products the catalog does not know; name the Play ids with \"googlePlay\"")
                productId = nil
            }
            let sku = optionalString(value, "sku", path)
            if let text = sku, text.isEmpty || text.unicodeScalars.contains(where: IdentifierText.isControl) {
                problem(JSONPath.member(path, "sku"), "expected a non-empty SKU without control characters, found \(IdentifierText.escaped(text))")
            }
            guard let typeText = string(value, "type", path) else { return nil }
            guard let type = ProductType(rawValue: typeText) else {
                problem(JSONPath.member(path, "type"), "unknown product type \"\(typeText)\"; expected one of autoRenewable, nonRenewing, free, issue")
                return nil
            }
            let googlePlay = readGooglePlay(value, path, type: type)
            if type == .issue {
                let publicationId = string(value, "publication", path)
                let issueId = string(value, "issue", path)
                guard let productId, let publicationId, let issueId else { return nil }
                guard let publication = publications[ExactKey(publicationId)] else {
                    problem(JSONPath.member(path, "publication"), "unknown publication \"\(publicationId)\"")
                    return nil
                }
                guard publication.index(ofIssue: issueId) != nil else {
                    problem(JSONPath.member(path, "issue"), "publication \"\(publicationId)\" has no issue \"\(issueId)\"")
                    return nil
                }
                return Product(productId: productId, publication: publicationId, issue: issueId, sku: sku, googlePlay: googlePlay)
            }
            var granted: [String] = []
            if let list = array(value, "publications", path) {
                for (index, entry) in list.elements.enumerated() {
                    let entryPath = JSONPath.element(JSONPath.member(path, "publications"), index)
                    guard let id = entry.string else {
                        problem(entryPath, "expected a publication id string")
                        continue
                    }
                    if publications[ExactKey(id)] == nil { problem(entryPath, "unknown publication \"\(id)\"") } else { granted.append(id) }
                }
                if list.count == 0 { problem(JSONPath.member(path, "publications"), "a subscription must grant at least one publication") }
            }
            var access: AccessStyle?
            if let accessText = string(value, "access", path) {
                access = AccessStyle(rawValue: accessText)
                if access == nil { problem(JSONPath.member(path, "access"), "unknown access \"\(accessText)\"; expected archive or streaming") }
            }
            var window: Int?
            if let windowValue = value.member("window"), !windowValue.isNull {
                if let number = windowValue.int64, number > 0, number <= Int64(Int32.max) {
                    window = Int(number)
                } else {
                    problem(JSONPath.member(path, "window"), "expected a positive whole number of issues, found \(windowValue.rendered)")
                }
            }
            var duration: CalendarDuration?
            if type == .nonRenewing {
                if let text = string(value, "duration", path) {
                    duration = CalendarDuration(iso8601: text)
                    if duration == nil {
                        problem(JSONPath.member(path, "duration"), "invalid ISO 8601 duration \"\(text)\"; expected PnYnMnWnD such as P1M")
                    }
                }
            }
            guard let productId, let access, !granted.isEmpty, type != .nonRenewing || duration != nil else { return nil }
            return Product(
                productId: productId, type: type, publications: granted, access: access, window: window, duration: duration, sku: sku,
                googlePlay: googlePlay)
        }

        /// A product's `"googlePlay"` object, if it has one (R18): `{"productId": …, "basePlanIds":
        /// […]}`. An auto-renewable product names at least one base plan; a non-renewing one may
        /// (a prepaid plan) or may not (a one-time product); a free or single-issue product is a
        /// one-time product and names none.
        mutating func readGooglePlay(_ product: JSONValue, _ productPath: String, type: ProductType) -> GooglePlayProductIds? {
            guard let value = product["googlePlay"], !value.isNull else { return nil }
            let path = JSONPath.member(productPath, "googlePlay")
            guard value.kind == .object else {
                problem(path, "expected an object with \"productId\" (and \"basePlanIds\"), found \(value.rendered)")
                return nil
            }
            unknownKeys(value, path, known: ["productId", "basePlanIds"])
            let productId = playId(value, "productId", path)
            var basePlanIds: [String] = []
            var seen: Set<ExactKey> = []
            let listPath = JSONPath.member(path, "basePlanIds")
            if let list = value["basePlanIds"], !list.isNull {
                if list.kind != .array {
                    problem(listPath, "expected an array of base plan ids, found \(list.rendered)")
                } else {
                    for (index, entry) in list.elements.enumerated() {
                        let entryPath = JSONPath.element(listPath, index)
                        guard let id = entry.string, !id.isEmpty, !id.unicodeScalars.contains(where: IdentifierText.isControl) else {
                            problem(entryPath, "expected a non-empty base plan id without control characters, found \(entry.rendered)")
                            continue
                        }
                        if seen.insert(ExactKey(id)).inserted { basePlanIds.append(id) } else { problem(entryPath, "duplicate base plan id \"\(id)\"") }
                    }
                    if list.count == 0, type == .autoRenewable { problem(listPath, "an auto-renewable product names at least one base plan") }
                }
            } else if type == .autoRenewable {
                problem(listPath, "missing; an auto-renewable product names the base plans that sell it")
            }
            if !basePlanIds.isEmpty, type == .free || type == .issue {
                problem(listPath, "a \(type.rawValue) product is a one-time product on Google Play and has no base plans")
                return nil
            }
            return productId.map { GooglePlayProductIds(productId: $0, basePlanIds: basePlanIds) }
        }

        /// A Google Play id: a non-empty string without control characters.
        mutating func playId(_ object: JSONValue, _ key: String, _ path: String) -> String? {
            guard let id = string(object, key, path) else { return nil }
            guard !id.unicodeScalars.contains(where: IdentifierText.isControl) else {
                problem(JSONPath.member(path, key), "expected an id without control characters, found \(IdentifierText.escaped(id))")
                return nil
            }
            return id
        }

        /// The `"app"` object, if there is one: a bundle id and, optionally, an App Apple ID.
        mutating func readApp(_ root: JSONValue) -> CatalogApp? {
            guard let value = root["app"], !value.isNull else { return nil }
            guard value.kind == .object else {
                problem("$.app", "expected an object with \"bundleId\" (and \"appAppleId\"), found \(value.rendered)")
                return nil
            }
            unknownKeys(value, "$.app", known: ["bundleId", "appAppleId"])
            let bundleId = string(value, "bundleId", "$.app")
            var appAppleId: Int64?
            if let number = value["appAppleId"], !number.isNull {
                appAppleId = number.int64
                if appAppleId.map({ $0 <= 0 }) ?? true {
                    problem("$.app.appAppleId", "expected the app's positive whole-number App Apple ID, found \(number.rendered)")
                    appAppleId = nil
                }
            }
            return bundleId.map { CatalogApp(bundleId: $0, appAppleId: appAppleId) }
        }

        // MARK: Field helpers

        /// Reports every member of `object` whose key (its exact bytes) is none of `known`, with
        /// the nearest known key when one is close.
        mutating func unknownKeys(_ object: JSONValue, _ path: String, known: [StaticString]) {
            for (key, _) in object.members where !known.contains(where: { key == $0 }) {
                let name = key.string
                let nearest = Spelling.closest(to: name, among: known.map { "\($0)" })
                problem(JSONPath.member(path, name), "unknown key \"\(name)\"" + (nearest.map { "; did you mean \"\($0)\"?" } ?? ""))
            }
        }

        mutating func string(_ object: JSONValue, _ key: String, _ path: String) -> String? {
            if object[key]?.isNull ?? true {
                problem(JSONPath.member(path, key), "missing")
                return nil
            }
            return optional(object, key, path, expected: "a non-empty string") { value in value.string.flatMap { $0.isEmpty ? nil : $0 } }
        }

        mutating func optionalString(_ object: JSONValue, _ key: String, _ path: String) -> String? {
            optional(object, key, path, expected: "a string") { $0.string }
        }

        mutating func optionalBool(_ object: JSONValue, _ key: String, _ path: String) -> Bool? {
            optional(object, key, path, expected: "true or false") { $0.bool }
        }

        /// Member `key` of `object` as `read` takes it; nil when it is absent or null, and when
        /// `read` refuses it (a problem saying what was `expected`).
        private mutating func optional<Value>(
            _ object: JSONValue, _ key: String, _ path: String, expected: String, _ read: (JSONValue) -> Value?
        ) -> Value? {
            guard let value = object[key], !value.isNull else { return nil }
            guard let result = read(value) else {
                problem(JSONPath.member(path, key), "expected \(expected), found \(value.rendered)")
                return nil
            }
            return result
        }

        mutating func date(_ object: JSONValue, _ key: String, _ path: String) -> Instant? {
            guard let text = string(object, key, path) else { return nil }
            guard let instant = DateText.rfc3339(text) else {
                problem(JSONPath.member(path, key), "invalid date \"\(text)\"; expected RFC 3339 such as 2020-02-01T00:00:00Z")
                return nil
            }
            return instant
        }

        mutating func array(_ object: JSONValue, _ key: String, _ path: String) -> JSONValue? {
            guard let value = object[key], !value.isNull else {
                problem(JSONPath.member(path, key), "missing")
                return nil
            }
            guard value.kind == .array else {
                problem(JSONPath.member(path, key), "expected an array, found \(value.rendered)")
                return nil
            }
            return value
        }
    }
}
