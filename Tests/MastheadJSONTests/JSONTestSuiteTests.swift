import Foundation
import MastheadJSON
import Testing

/// The parsing cases of the public JSON conformance suite (nst/JSONTestSuite), kept in `Tests/Fixtures/JSONTestSuite`.
struct JSONTestSuiteTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/JSONTestSuite/test_parsing")

    static func cases(prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Decisions on the cases RFC 8259 leaves open: accepted ones; every other `i_` case is rejected.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json", "i_structure_500_nested_arrays.json",
        "i_structure_UTF-8_BOM_empty_object.json",
    ]

    /// `y_` cases this reader rejects on purpose: objects repeating a member name (the
    /// MastheadJSON catalog says why).
    static let rejectedValid: Set<String> = ["y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"]

    @Test func suite_isPresent() {
        #expect(Self.cases(prefix: "y_").count == 95, "expected the suite in Tests/Fixtures/JSONTestSuite")
        #expect(Self.cases(prefix: "n_").count == 188)
        #expect(Self.cases(prefix: "i_").count == 35)
    }

    @Test(arguments: cases(prefix: "y_"))
    func parser_accepts_yCase(name: String) throws {
        let bytes = try Self.bytes(name)
        if Self.rejectedValid.contains(name) {
            #expect { try JSONDocument(parsing: bytes) } throws: { error in
                guard case JSONError.duplicateKey = error else { return false }
                return true
            }
        } else {
            #expect(throws: Never.self) { try JSONDocument(parsing: bytes) }
        }
    }

    @Test(arguments: cases(prefix: "n_"))
    func parser_rejects_nCase(name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(throws: JSONError.self) { try JSONDocument(parsing: bytes) }
    }

    @Test(arguments: cases(prefix: "i_"))
    func parser_followsDocumentedChoice_iCase(name: String) throws {
        let bytes = try Self.bytes(name)
        if Self.acceptedImplementationDefined.contains(name) {
            #expect(throws: Never.self) { try JSONDocument(parsing: bytes) }
        } else {
            #expect(throws: JSONError.self) { try JSONDocument(parsing: bytes) }
        }
    }

    /// Every accepted document reads back to the same structure Foundation sees.
    @Test(arguments: cases(prefix: "y_").filter { !rejectedValid.contains($0) })
    func parser_agreesWithFoundation_yCase(name: String) throws {
        let bytes = try Self.bytes(name)
        let ours = try JSONDocument(parsing: bytes).root
        let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        #expect(JSONComparison.describe(ours) == JSONComparison.describe(foundation: theirs))
    }
}
