import Masthead
import MastheadJSON

extension AuditSummary {
    /// The summary as one JSON object (`masthead audit --summary-json`): the figures of
    /// ``rendered`` under stable names, for programs that add up the summaries of several parts
    /// of one audit. Counts per as-of instant are arrays in the order of `instants`, never added
    /// together; products (their ids' exact bytes) come in the order of ``products``, grants'
    /// sources in the order of ``grantSources``, the
    /// findings' kinds in the order of ``GrantFinding/allCases``, each kind's products worst
    /// first. Ends with a newline.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        func counts(_ values: [Int]) {
            writer.beginArray()
            for value in values { writer.int(Int64(value)) }
            writer.endArray()
        }
        writer.beginObject()
        writer.key("instants")
        writer.beginArray()
        for instant in instants { writer.string(instant.description) }
        writer.endArray()
        writer.field("linesRead", Int64(lines))
        if let shard {
            writer.field("shard", shard.description)
            writer.field("linesOfOtherShards", Int64(otherShardLines))
        }
        writer.field("users", Int64(users))
        writer.field("rejectedLines", Int64(rejectedLines))
        writer.key("signedData")
        writer.beginObject()
        writer.field("users", Int64(signedLines))
        writer.field("signaturesVerified", signaturesVerified)
        writer.endObject()
        writer.field("unknownProductTransactions", Int64(unknownProductTransactions))
        writer.field("userPublicationLines", Int64(outputLines))
        writer.key("byStatus")
        writer.beginObject()
        for state in SubscriptionState.allCases {
            writer.key(state.rawValue)
            counts(byInstant.map { $0[state] ?? 0 })
        }
        writer.endObject()
        writer.key("byProduct")
        writer.beginArray()
        for product in products {
            let perInstant = byProduct.map { $0[ExactKey(product)] ?? ProductCount() }
            writer.beginObject()
            writer.field("product", product)
            writer.key("entitled")
            counts(perInstant.map(\.entitled))
            writer.key("lines")
            counts(perInstant.map(\.lines))
            writer.endObject()
        }
        writer.endArray()
        writer.key("accessFrom")
        writer.beginObject()
        writer.key("appStoreOnly")
        counts(byAccessSource.map(\.appStoreOnly))
        writer.key("grantsOnly")
        counts(byAccessSource.map(\.grantsOnly))
        writer.key("both")
        counts(byAccessSource.map(\.both))
        writer.endObject()
        writer.key("grantsBySource")
        writer.beginArray()
        for source in grantSources {
            writer.beginObject()
            writer.field("source", source)
            writer.field("grants", Int64(grantsBySource[ExactKey(source)] ?? 0))
            writer.endObject()
        }
        writer.endArray()
        writer.field("reconciled", reconciled)
        writer.key("findings")
        writer.beginArray()
        for kind in GrantFinding.allCases {
            writer.beginObject()
            writer.field("kind", kind.rawValue)
            writer.key("total")
            counts(total(kind))
            writer.key("products")
            writer.beginArray()
            for product in products(with: kind) {
                writer.beginObject()
                writer.field("product", product)
                writer.key("counts")
                counts(self.counts(kind, product: product))
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.key("unknownGrants")
        writer.beginObject()
        writer.field("users", Int64(unknownGrantUsers))
        writer.field("publications", Int64(unknownGrantPublications))
        writer.field("issues", Int64(unknownGrantIssues))
        writer.endObject()
        if shard != nil { writer.field("grantsOfOtherShards", Int64(otherShardGrants)) }
        writer.endObject()
        writer.newline()
        return writer.bytes
    }
}
