import Masthead
import MastheadJSON

/// A list of publication ids as the gift code and licence tables keep it: a JSON array of
/// strings in one text column.
enum StoredPublications {
    /// The text stored for `publications`.
    static func text(_ publications: [String]) -> String {
        var writer = JSONWriter(capacity: 16 + 24 * publications.count)
        writer.beginArray()
        for publication in publications { writer.string(publication) }
        writer.endArray()
        return writer.text
    }

    /// The publications `text` holds, or nil when it is not a JSON array of strings.
    static func publications(_ text: String) -> [String]? {
        guard let document = try? JSONDocument(parsing: text, maxDepth: 2), document.root.kind == .array else { return nil }
        var publications: [String] = []
        for element in document.root.elements {
            guard let id = element.string else { return nil }
            publications.append(id)
        }
        return publications
    }
}

extension StoreRow {
    /// Column `index` as a list of publication ids (``StoredPublications``).
    func publications(_ index: Int32) throws(Failure) -> [String] {
        let text = try text(index)
        guard let publications = StoredPublications.publications(text) else {
            throw unexpected(index, value: text, expected: "a JSON array of publication ids")
        }
        return publications
    }

    /// Column `index` as an access style (its raw name).
    func access(_ index: Int32) throws(Failure) -> AccessStyle {
        let name = try text(index)
        guard let access = AccessStyle(rawValue: name) else { throw unexpected(index, value: name, expected: "archive or streaming") }
        return access
    }
}
