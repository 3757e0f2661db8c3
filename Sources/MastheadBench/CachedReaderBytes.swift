import Foundation
import Glibc
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadSynthetic

/// The memory what the download check's cache holds for a reader takes, measured in this process
/// as the growth of its resident memory while it builds and keeps the parts for the first
/// `readers` generated readers of the options' seed (their receipts decoded as the service stores
/// them, the entitlement to the publication evaluated at the bench's instant, one check body
/// split around its `at`, for an issue in turn):
/// - now: the entitlement kept for issue decisions (``PublicationEntitlement/keepingIssueDecisions()``)
///   and the body, each reader's history and full entitlement released at once (as the service
///   does: what they shared with the kept parts stays);
/// - before: the history, the full entitlement and the body (what the cache kept until 0.12),
///   each part's growth apart.
///
/// Run while this process allocates alone (before the server and wrk start); "now" first, so
/// that "before" grows into fresh pages.
struct CachedReaderBytes {
    var readers: Int
    var now: Double
    var history: Double
    var fullAnswer: Double
    var checkBody: Double

    static func measure(_ options: BenchOptions, catalog: Catalog, publication: Publication, at: Instant, readers: Int) throws -> CachedReaderBytes {
        let population = SyntheticPopulation(catalog: catalog)
        let decoder = ReceiptDecoder(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        var random = SeededGenerator(seed: options.seed)
        let receipts = (0..<readers).map { population.receipt(user: $0, random: &random) }
        func resident() -> Int { residentMemory(getpid()).rss }
        func body(_ index: Int, _ answer: PublicationEntitlement) -> (head: [UInt8], tail: [UInt8]) {
            let issue = publication.issues[index % publication.issues.count]
            var writer = JSONWriter(capacity: 640)
            let range = EntitlementJSON.writeCheck(issue, answer.access(toIssue: issue.id)!, answer, userId: "user-\(index)", into: &writer)
            return (Array(writer.bytes[..<range.lowerBound]), Array(writer.bytes[range.upperBound...]))
        }
        // The arrays holding the parts are reserved first: only the parts are counted.
        var kept: [(PublicationEntitlement, head: [UInt8], tail: [UInt8])] = []
        kept.reserveCapacity(readers)
        var histories: [PurchaseHistory] = []
        histories.reserveCapacity(readers)
        var answers: [PublicationEntitlement] = []
        answers.reserveCapacity(readers)
        var bodies: [(head: [UInt8], tail: [UInt8])] = []
        bodies.reserveCapacity(readers)

        var start = resident()
        for (index, receipt) in receipts.enumerated() {
            let answer = engine.evaluate(try decoder.decode(receipt).history, publication: publication, at: at).keepingIssueDecisions()
            let (head, tail) = body(index, answer)
            kept.append((answer, head, tail))
        }
        let now = resident() - start
        start = resident()
        for receipt in receipts { histories.append(try decoder.decode(receipt).history) }
        let history = resident() - start
        start = resident()
        for history in histories { answers.append(engine.evaluate(history, publication: publication, at: at)) }
        let fullAnswer = resident() - start
        start = resident()
        for (index, answer) in answers.enumerated() { bodies.append(body(index, answer)) }
        let checkBody = resident() - start
        withExtendedLifetime((kept, histories, answers, bodies)) {}
        let count = Double(readers)
        return CachedReaderBytes(
            readers: readers, now: Double(now) / count, history: Double(history) / count, fullAnswer: Double(fullAnswer) / count,
            checkBody: Double(checkBody) / count)
    }

    /// The figures, per reader.
    var summary: String {
        func bytes(_ value: Double) -> String { String(format: "%.0f", value) }
        let before = history + fullAnswer + checkBody
        return """
            memory a cached reader's parts take (this process's RSS growth over \(readers) generated readers): \
            before: history \(bytes(history)) + full entitlement \(bytes(fullAnswer)) + one check body \(bytes(checkBody)) \
            = \(bytes(before)) bytes; now: entitlement kept for issue decisions + one check body \(bytes(now)) bytes \
            (\(String(format: "%.1f", before / now))× less); the cache's own slot and dictionaries come on top
            """
    }
}
