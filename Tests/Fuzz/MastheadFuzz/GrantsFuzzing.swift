import Masthead
import MastheadFormats
import MastheadJSON

/// The readers of the publisher's grants (R17): the input as a grants file (CSV records, joined
/// across lines while a quoted field is open, or JSON lines), and as one grant's JSON as the
/// service reads a PUT body; then the entitlement rules over what was read.
enum GrantsFuzzing {
    static func run(_ bytes: [UInt8]) {
        var grants: [Grant] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        switch GrantsFileDecoder.Format(firstBytes: bytes) {
        case .jsonLines:
            for line in lines {
                if let read = try? GrantsFileDecoder.grant(jsonLine: line) { grants.append(read.grant) }
            }
        case .csv:
            var records: [[UInt8]] = []
            var open: [UInt8]?
            for line in lines {
                var record = open.map { $0 + [UInt8(ascii: "\n")] + line } ?? line
                if GrantsFileDecoder.csvRecordIsComplete(record) {
                    records.append(record)
                    open = nil
                } else {
                    open = record
                    record = []
                }
            }
            if let first = records.first, let header = try? GrantsFileDecoder.csvHeader(first) {
                for record in records.dropFirst() {
                    _ = try? GrantsFileDecoder.csvFields(record)
                    if let read = try? GrantsFileDecoder.grant(csv: record, header: header) { grants.append(read.grant) }
                }
            }
        }
        if let root = try? JSONDocument(parsing: bytes).root {
            if let grant = try? GrantDecoder.grant(root, grantId: "from-the-address") { grants.append(grant) }
            if let list = try? GrantDecoder.grants(root, path: "$.grants") { grants += list }
        }
        FormatsFuzzing.evaluate(PurchaseHistory(grants: grants), environment: .production)
    }
}
