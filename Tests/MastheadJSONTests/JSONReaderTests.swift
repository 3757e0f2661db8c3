import MastheadJSON
import Testing

struct JSONReaderTests {
    @Test func error_namesLineColumnAndPath_whenValueIsBad() {
        let text = "{\n  \"receipt\": {\n    \"in_app\": [1, 2, tru]\n  }\n}"
        do {
            _ = try JSONDocument(parsing: text)
            Issue.record("expected an error")
        } catch {
            guard case .syntax(_, let location) = error else { Issue.record("unexpected \(error)"); return }
            #expect(location.line == 3)
            #expect(location.column == 22)
            #expect(location.path == "$.receipt.in_app[2]")
        }
    }

    @Test func error_namesKey_whenMemberValueIsMissing() {
        do {
            _ = try JSONDocument(parsing: #"{"a": {"b c": }}"#)
            Issue.record("expected an error")
        } catch {
            guard case .syntax(let message, let location) = error else { Issue.record("unexpected \(error)"); return }
            #expect(message.contains("expected a value"))
            #expect(location.path == #"$.a["b c"]"#)
            #expect(location.line == 1)
            #expect(location.column == 15)
        }
    }

    @Test func parser_rejectsTooDeep_atLimit() {
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONError.self) { try JSONDocument(parsing: deep) }
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONDocument(parsing: ok) }
    }

    @Test func member_skipsNestedContainers() throws {
        let root = try JSONDocument(parsing: #"{"x": {"id": 1, "deep": [{"id": 9}]}, "id": "top"}"#).root
        #expect(root.member("id")?.string == "top")
        #expect(root["x"]?["deep"]?.elements.first(where: { _ in true })?["id"]?.int64 == 9)
        #expect(root.count == 2)
        #expect(root["missing"] == nil)
    }

    @Test func string_decodesEscapesAndSurrogatePairs() throws {
        let root = try JSONDocument(parsing: #"["a\"b\\c\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "plain é"]"#).root
        let values = root.elements.map { $0.string }
        #expect(values == ["a\"b\\c/\u{8}\u{c}\n\r\t", "é😀", "plain é"])
    }

    @Test func int64_readsIntegersOnly_andRejectsOverflow() throws {
        let root = try JSONDocument(parsing: "[0, -12, 9223372036854775807, 9223372036854775808, 1.5, 1e3, -9223372036854775808]").root
        #expect(root.elements.map(\.int64) == [0, -12, .max, nil, nil, nil, .min])
        #expect(root.elements.map(\.double).compactMap { $0 }.count == 7)
    }

    @Test func int64_eightDigitsAtATime_thenOneByOne() throws {
        let root = try JSONDocument(parsing: "[12345678, -87654321, 1582200000000, 123456789012345678, 10000000, 99999999, 1234567.5, 123456789e2]").root
        #expect(root.elements.map(\.int64) == [12_345_678, -87_654_321, 1_582_200_000_000, 123_456_789_012_345_678, 10_000_000, 99_999_999, nil, nil])
    }

    @Test func int64_eighteenAndNineteenDigits() throws {
        let root = try JSONDocument(parsing: "[999999999999999999, -999999999999999999, 1000000000000000000, 9999999999999999999, \"-\"]").root
        #expect(root.elements.map(\.int64) == [999_999_999_999_999_999, -999_999_999_999_999_999, 1_000_000_000_000_000_000, nil, nil])
    }

    @Test func digitsInt64_readsPlainDigitStringsOnly() throws {
        let root = try JSONDocument(parsing: #"["1582200000000", "007", "9223372036854775807", "9223372036854775808", "-1", "+1", "1.0", "", "\u0031", 5]"#).root
        #expect(root.withUnsafeValue { $0.elements.map(\.digitsInt64) } == [1_582_200_000_000, 7, .max, nil, nil, nil, nil, nil, nil, nil])
    }

    /// Key comparison reads words of eight and four bytes (overlapping at the end): a key that
    /// differs from the name in any one byte, at any length, must not match.
    @Test func member_matchesOnlyTheExactName_atEveryLengthAndPosition() throws {
        let names: [StaticString] = [
            "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefghijk",
            "abcdefghijkl", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwx",
            "abcdefghijklmnopqrstuvwxy",
        ]
        for name in names {
            let text = name.description
            var members = (0..<text.utf8.count).map { position -> String in
                var bytes = Array(text.utf8)
                bytes[position] = UInt8(ascii: "Z")
                return "\"\(String(decoding: bytes, as: UTF8.self))\": 0"
            }
            members += ["\"\(text)Z\": 0", "\"Z\(text)\": 0", "\"\(text)\": 1"]
            let root = try JSONDocument(parsing: "{" + members.joined(separator: ", ") + "}").root
            #expect(root.member(name)?.int64 == 1, "\(text)")
            #expect(root.withUnsafeValue { $0.member(name)?.int64 } == 1, "\(text)")
            #expect(root.members.filter { $0.key == name }.count == 1, "\(text)")
        }
    }

    @Test func unsafeValue_readsLikeTheOwningValue() throws {
        let root = try JSONDocument(parsing: #"{"s": "x\u00e9", "n": -5, "t": true, "z": null, "a": [1, {"b": 2}], "o": {}}"#).root
        root.withUnsafeValue { node in
            #expect(node.kind == .object && node.count == 6)
            #expect(node.member("s")?.string == "xé")
            #expect(node.member("s")?.stringEquals("xé") == true)
            #expect(node.member("n")?.int64 == -5 && node.member("n")?.numberText == "-5")
            #expect(node.member("t")?.bool == true && node.member("z")?.isNull == true)
            #expect(node.member("a")?.elements.map(\.kind) == [.number, .object])
            #expect(node["o"]?.count == 0 && node.member("missing") == nil)
            #expect(Array(node.members.map(\.key.string)) == root.members.map(\.key.string))
        }
    }

    @Test func writer_roundTripsThroughReader() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("text", "quote \" slash \\ newline \n tab \t bell \u{7} é")
        writer.field("number", Int64(-42))
        writer.field("flag", true)
        writer.field("nothing", nil as String?)
        writer.key("list")
        writer.beginArray()
        writer.string("a")
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.endArray()
        writer.endObject()
        let root = try JSONDocument(parsing: writer.bytes).root
        #expect(root["text"]?.string == "quote \" slash \\ newline \n tab \t bell \u{7} é")
        #expect(root["number"]?.int64 == -42)
        #expect(root["flag"]?.bool == true)
        #expect(root["nothing"]?.isNull == true)
        #expect(root["list"]?.count == 3)
        #expect(writer.text == #"{"text":"quote \" slash \\ newline \n tab \t bell \u0007 é","number":-42,"flag":true,"nothing":null,"list":["a",{},[]]}"#)
    }

    @Test func path_quotesKeysThatAreNotPlainNames() {
        #expect(JSONPath.member("$", "in_app") == "$.in_app")
        #expect(JSONPath.member("$", "a b") == #"$["a b"]"#)
        #expect(JSONPath.element("$.x", 3) == "$.x[3]")
    }
}

/// The eight-bytes-at-a-time string scan must see a special byte at every position of a block.
struct JSONStringScanTests {
    static let offsets = Array(0..<24)

    @Test(arguments: offsets)
    func controlByte_isRejected_atAnyOffset(offset: Int) {
        let text = "\"" + String(repeating: "a", count: offset) + "\u{01}" + String(repeating: "b", count: 9) + "\""
        #expect(throws: JSONError.self) { try JSONDocument(parsing: text) }
    }

    @Test(arguments: offsets)
    func quoteBackslashAndUTF8_areSeen_atAnyOffset(offset: Int) throws {
        let prefix = String(repeating: "a", count: offset)
        let root = try JSONDocument(parsing: "[\"\(prefix)\", \"\(prefix)\\\"x\", \"\(prefix)é€😀x\", \"\(prefix)\u{7F}z\"]").root
        #expect(root.elements.map(\.string) == [prefix, prefix + "\"x", prefix + "é€😀x", prefix + "\u{7F}z"])
        #expect(throws: JSONError.self) { try JSONDocument(parsing: Array("\"\(prefix)".utf8) + [0xC3, 0x28, 0x22]) }
    }
}
