import Masthead
import MastheadJSON
import Testing

/// The OpenAPI document's schemas of an answer's intervals, reasons and denials, and what the
/// engine can answer since grants (R17).
struct OpenAPIGrantTests {
    /// Every string an `enum` or `const` lists under a `kind` property anywhere in `value`.
    static func kinds(in value: JSONValue) -> Set<String> {
        var found: Set<String> = []
        for (key, member) in value.members {
            if key.string == "kind", let listed = member["enum"] { found.formUnion(listed.elements.compactMap(\.string)) }
            if key.string == "kind", let constant = member["const"]?.string { found.insert(constant) }
            found.formUnion(kinds(in: member))
        }
        for element in value.elements { found.formUnion(kinds(in: element)) }
        return found
    }

    static func schema(_ name: String) throws -> JSONValue {
        try #require(try OpenAPIDocumentTests.document()["components"]?["schemas"]?[name])
    }

    @Test func intervalSchema_namesEveryIntervalKind_grantIncluded() throws {
        let listed = Self.kinds(in: try Self.schema("Interval"))
        for kind in IntervalKind.allCases { #expect(listed.contains(kind.rawValue), "\(kind.rawValue) missing") }
    }

    @Test func reasonAndDenialSchemas_nameTheGrantsKinds() throws {
        #expect(Self.kinds(in: try Self.schema("Reason")).contains(AccessReason.granted(grantId: "g", source: "comp").name))
        #expect(Self.kinds(in: try Self.schema("Denial")).contains(Denial.grantRevoked(grantId: "g", source: "comp", revokedAt: Instant(milliseconds: 0)).name))
    }
}
