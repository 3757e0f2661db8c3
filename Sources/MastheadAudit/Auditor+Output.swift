import Masthead
import MastheadFormats
import MastheadJSON

/// The output lines: JSON objects or CSV rows, one per (user, publication).
extension Auditor {
    /// One instant's answer for a (user, publication) line, with its reconciliation when there are grants.
    typealias Decided = (entitlement: PublicationEntitlement, reconciliation: Reconciliation?)

    /// The CSV header: `user_id,publication`, then per instant `status`, `readable` (and with grants
    /// `over_granted`, `under_granted`, `held_after_entitlement_ended`), suffixed `@INSTANT` when
    /// there are several instants.
    static func csvHeader(instants: [Instant], reconciles: Bool) -> String {
        var columns = ["user_id", "publication"]
        for instant in instants {
            let suffix = instants.count == 1 ? "" : "@\(instant)"
            columns += ["status", "readable"].map { $0 + suffix }
            if reconciles { columns += ["over_granted", "under_granted", "held_after_entitlement_ended"].map { $0 + suffix } }
        }
        return columns.joined(separator: ",") + "\n"
    }

    mutating func writeJSON(userId: String, _ results: [Decided]) {
        writer.reset()
        writer.beginObject()
        writer.field("user_id", userId)
        writer.field("publication", results[0].entitlement.publication.id)
        if results.count == 1 {
            writeJSONResult(results[0])
        } else {
            writer.key("asOf")
            writer.beginArray()
            for result in results {
                writer.beginObject()
                writer.field("at", result.entitlement.at.description)
                writeJSONResult(result)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        writer.newline()
        output += writer.bytes
    }

    /// `status` and `readable` of one instant, and `overGranted`, `underGranted` and
    /// `heldAfterEntitlementEnded` with the engine's reasons and when each issue was served.
    private mutating func writeJSONResult(_ result: Decided) {
        writer.field("status", result.entitlement.status.state.rawValue)
        writer.key("readable")
        writer.beginArray()
        for entry in result.entitlement.readable { writer.string(entry.issue.id) }
        writer.endArray()
        guard let reconciliation = result.reconciliation else { return }
        writer.key("overGranted")
        writer.beginArray()
        for (issue, grantedAt, denial) in reconciliation.over {
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.field("grantedAt", grantedAt?.description)
            writer.key("reason")
            EntitlementJSON.writeDenial(denial, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.key("underGranted")
        writer.beginArray()
        for entry in reconciliation.under {
            writer.beginObject()
            writer.field("issue", entry.issue.id)
            writer.key("reason")
            EntitlementJSON.writeReason(entry.reasons[0], result.entitlement, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.key("heldAfterEntitlementEnded")
        writer.beginArray()
        for (issue, grantedAt, denial) in reconciliation.held {
            writer.beginObject()
            writer.field("issue", issue.id)
            writer.field("grantedAt", grantedAt.description)
            writer.key("reason")
            EntitlementJSON.writeDenial(denial, into: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    mutating func writeCSV(userId: String, _ results: [Decided]) {
        var row = [userId, results[0].entitlement.publication.id]
        for (entitlement, reconciliation) in results {
            row.append(entitlement.status.state.rawValue)
            row.append(entitlement.readable.map(\.issue.id).joined(separator: " "))
            if let reconciliation {
                row.append(reconciliation.over.map { "\($0.issue.id)=\($0.denial.name)" }.joined(separator: " "))
                row.append(reconciliation.under.map { "\($0.issue.id)=\($0.reasons[0].name)" }.joined(separator: " "))
                row.append(reconciliation.held.map { "\($0.issue.id)=\($0.denial.name)" }.joined(separator: " "))
            }
        }
        output += CSV.row(row).utf8
    }
}
