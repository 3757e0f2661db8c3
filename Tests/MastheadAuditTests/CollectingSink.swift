import MastheadAudit

/// An audit sink that keeps everything it is given.
final class CollectingSink: AuditSink {
    let showsProgress: Bool
    private(set) var bytes: [UInt8] = []
    private(set) var rejected: [String] = []
    private(set) var positions: [AuditPosition] = []

    init(showsProgress: Bool = false) { self.showsProgress = showsProgress }

    /// The output as text.
    var output: String { String(decoding: bytes, as: UTF8.self) }

    /// The output's lines.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    func write(_ bytes: [UInt8]) throws { self.bytes += bytes }

    func reject(_ message: String) throws { rejected.append(message) }

    func progress(_ position: AuditPosition) throws { positions.append(position) }
}
