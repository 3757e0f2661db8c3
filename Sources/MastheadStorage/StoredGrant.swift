import Masthead
import MastheadJSON

/// A grant (R17) as the `grants` table keeps it: its scope's kind (`span` or `issues`), its
/// publications and issue ids each as a JSON array of strings (ids keep their exact bytes), the
/// access style and streaming window of a span, and instants in milliseconds since 1970.
enum StoredGrant {
    /// The columns ``StoreRow/grant()`` reads, in its order.
    static let columns = "grant_id, source, kind, publications, access, stream_window, issue_ids, start_ms, end_ms, revoked_ms"

    /// A list of ids as the table keeps it.
    static func text(_ ids: [String]) -> String {
        var writer = JSONWriter(capacity: 16 * ids.count + 2)
        writer.beginArray()
        for id in ids { writer.string(id) }
        writer.endArray()
        return writer.text
    }

    /// A list of ids read from its stored text; nil when the text is not an array of strings.
    static func ids(_ text: String) -> [String]? {
        guard let document = try? JSONDocument(parsing: text, maxDepth: 2), document.root.kind == .array else { return nil }
        var ids: [String] = []
        for element in document.root.elements {
            guard let id = element.string else { return nil }
            ids.append(id)
        }
        return ids
    }

    /// Whether two grants are the same to the byte: every id and the source compared by their
    /// bytes, as identifiers are (Swift's `==` on `Grant` compares strings canonically).
    static func identical(_ a: Grant, _ b: Grant) -> Bool {
        guard a.grantId.sameBytes(as: b.grantId), a.source.sameBytes(as: b.source), a.start == b.start, a.end == b.end,
            a.revokedAt == b.revokedAt
        else { return false }
        switch (a.scope, b.scope) {
        case (.span(let publications, let access, let window), .span(let otherPublications, let otherAccess, let otherWindow)):
            return access == otherAccess && window == otherWindow && sameBytes(publications, otherPublications)
        case (.issues(let publication, let issueIds), .issues(let otherPublication, let otherIssueIds)):
            return publication.sameBytes(as: otherPublication) && sameBytes(issueIds, otherIssueIds)
        default:
            return false
        }
    }

    private static func sameBytes(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.sameBytes(as: $1) }
    }
}

extension StoreRow {
    /// The grant whose columns a query selected as ``StoredGrant/columns`` lists them.
    func grant() throws(Failure) -> Grant {
        let kind = try text(2)
        let publicationsText = try text(3)
        guard let publications = StoredGrant.ids(publicationsText) else {
            throw unexpected(3, value: publicationsText, expected: "a JSON array of publication ids")
        }
        let scope: Grant.Scope
        switch kind {
        case "span":
            let name = try text(4)
            guard let access = AccessStyle(rawValue: name) else { throw unexpected(4, value: name, expected: "an access style (archive or streaming)") }
            scope = .span(publications: publications, access: access, window: try optionalInteger(5).map { Int($0) })
        case "issues":
            let issuesText = try text(6)
            guard publications.count == 1, let issueIds = StoredGrant.ids(issuesText) else {
                throw unexpected(6, value: issuesText, expected: "a JSON array of issue ids, for one publication")
            }
            scope = .issues(publication: publications[0], issueIds: issueIds)
        default:
            throw unexpected(2, value: kind, expected: "a grant kind (span or issues)")
        }
        return Grant(
            grantId: try text(0), source: try text(1), scope: scope, start: try instant(7), end: try optionalInstant(8),
            revokedAt: try optionalInstant(9))
    }
}
