import MastheadJSON
import Testing

/// An object may not repeat a member name, compared after unescaping: readers that keep the
/// first and readers that keep the last occurrence would otherwise see different documents.
struct DuplicateKeyTests {
    /// The duplicate-key error of `text`, or nil when it parses.
    static func duplicate(_ text: String) -> (name: String, offset: Int, path: String)? {
        do {
            _ = try JSONDocument(parsing: text)
            return nil
        } catch {
            guard case .duplicateKey(let name, let offset, let location) = error else {
                Issue.record("unexpected \(error)")
                return nil
            }
            return (name, offset, location.path)
        }
    }

    @Test func parser_rejectsRepeatedName_namingKeyOffsetAndPath() {
        let text = #"{"x": {"a": 1, "b": [{"a": 2}], "a": 3}}"#
        let found = Self.duplicate(text)
        #expect(found?.name == "a")
        #expect(found?.offset == 32)
        #expect(found?.path == "$.x.a")
        #expect(Array(text.utf8)[32] == UInt8(ascii: "\""))
        #expect(throws: JSONError.self) { try JSONDocument(parsing: #"{"a":"b","a":"b"}"#) }
    }

    @Test func parser_comparesNamesAfterUnescaping() {
        #expect(Self.duplicate(#"{"a": 1, "\u0061": 2}"#)?.name == "a")
        #expect(Self.duplicate(#"{"\u0061": 1, "a": 2}"#)?.name == "a")
        #expect(Self.duplicate(#"{"\u00e9t\u00E9": 1, "été": 2}"#)?.name == "été")
        #expect(Self.duplicate(#"{"a\/b": 1, "a/b": 2}"#)?.name == "a/b")
        #expect(Self.duplicate(#"{"id\u0000": 1, "id\u0000": 2}"#)?.name == "id\u{0}")
        // Different code points are different names, even when Unicode calls them equivalent.
        #expect(Self.duplicate(#"{"é": 1, "e\u0301": 2, "id": 3, "id\u0000": 4, "": 5, " ": 6}"#) == nil)
    }

    @Test func parser_acceptsTheSameNameInDifferentObjects() {
        #expect(Self.duplicate(#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}], "c": {"a": [], "b": {}}}"#) == nil)
        #expect(Self.duplicate(#"[{"a": 1}, {"a": 1}]"#) == nil)
    }

    /// Names of every length from 1 to 40 (so every hash path), in objects of up to 300 members
    /// (past the point where the filters fill and the whole-object check takes over), with the
    /// repeat at each interesting place.
    @Test(arguments: [2, 8, 16, 17, 33, 64, 100, 300])
    func parser_findsTheFirstRepeat_inObjectsOfAnySize(members: Int) {
        let names = (0..<members).map { index in
            String(repeating: "k", count: index % 40) + "\(index)"
        }
        let distinct = "{" + names.map { #""\#($0)": [\#($0.count)]"# }.joined(separator: ", ") + "}"
        #expect(Self.duplicate(distinct) == nil)
        for (repeated, position) in [(0, members), (members - 1, members), (members / 2, members / 2 + 1), (0, 1)] where position <= members {
            var withRepeat = names
            withRepeat.insert(names[repeated], at: position)
            let text = "{" + withRepeat.map { #""\#($0)": {"\#($0)": 0}"# }.joined(separator: ", ") + "}"
            let found = Self.duplicate(text)
            #expect(found?.name == names[repeated], "\(members) members, \(repeated) repeated at \(position)")
            #expect(found?.path == "$." + names[repeated])
            let prefix = "{" + withRepeat[..<position].map { #""\#($0)": {"\#($0)": 0}"# }.joined(separator: ", ") + ", "
            #expect(found?.offset == prefix.utf8.count)
        }
    }

    /// Names alike in length and in their first and last eight bytes share every filter bit:
    /// past 16 comparisons the object is checked whole at its end, and still finds the first repeat.
    @Test func parser_findsTheFirstRepeat_amongNamesThatHashAlike() {
        let names = (0..<200).map { "prefix__" + String(1000 + $0) + "__suffix" }
        #expect(Self.duplicate("{" + names.map { #""\#($0)": 1"# }.joined(separator: ", ") + "}") == nil)
        var repeated = names
        repeated.insert(names[40], at: 150)
        repeated.insert(names[7], at: 180)
        let text = "{" + repeated.map { #""\#($0)": 1"# }.joined(separator: ", ") + "}"
        let found = Self.duplicate(text)
        #expect(found?.name == names[40])
        #expect(found?.offset == ("{" + repeated[..<150].map { #""\#($0)": 1"# }.joined(separator: ", ") + ", ").utf8.count)
        #expect(found?.path == "$." + names[40])
    }

    @Test func error_describesNameOffsetAndLocation() {
        do {
            _ = try JSONDocument(parsing: "{\"a\": 1,\n \"a\\n\": 2, \"a\\n\": 3}")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == #"invalid JSON: duplicate key "a\n" at byte 20 (line 2, column 12, at $["a\\n"])"#)
        }
    }
}
