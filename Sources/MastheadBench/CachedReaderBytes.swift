import Foundation
import Glibc
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadSynthetic

/// The heap bytes what the download check's cache holds for a reader takes, counted in this
/// process with glibc's `malloc_info` (bytes the heap holds less its free chunks, its unused top
/// included; to within the few chunks malloc keeps per thread for reuse) while it builds and
/// keeps the parts for the first `readers` generated readers of the options' seed: each receipt
/// decoded as the service stores it, the entitlement to the publication evaluated at the bench's
/// instant, one check body without its `at` (for an issue in turn):
/// - before: the history, the full entitlement and the body in two arrays, what the cache kept
///   until now, each part's own bytes apart (the entitlement shares strings with the history);
/// - now: the entitlement kept for issue decisions (``KeptEntitlement``: readable issues as
///   positions in the publication's issues) and its body's bytes before and after its `at`
///   value, once the histories and full entitlements are released (what they shared with the
///   kept parts stays, counted).
///
/// Run while this process allocates alone (before the server and wrk start).
struct CachedReaderBytes {
    var readers: Int
    var history: Double
    var fullAnswer: Double
    var checkBody: Double
    var now: Double

    static func measure(_ options: BenchOptions, catalog: Catalog, publication: Publication, at: Instant, readers: Int) throws -> CachedReaderBytes {
        let population = SyntheticPopulation(catalog: catalog)
        let decoder = ReceiptDecoder(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        var random = SeededGenerator(seed: options.seed)
        let receipts = (0..<readers).map { population.receipt(user: $0, random: &random) }
        // Split around its `at` value, without it, as the cache keeps it (and kept before, in two arrays).
        func body(_ index: Int, _ answer: PublicationEntitlement) -> (head: [UInt8], tail: [UInt8]) {
            let issue = publication.issues[index % publication.issues.count]
            var writer = JSONWriter(capacity: 640)
            let range = EntitlementJSON.writeCheck(issue, answer.access(toIssue: issue.id)!, answer, userId: "user-\(index)", into: &writer)
            return (Array(writer.bytes[..<range.lowerBound]), Array(writer.bytes[range.upperBound...]))
        }
        // The arrays holding the parts are reserved first: only the parts are counted.
        var histories: [PurchaseHistory] = []
        histories.reserveCapacity(readers)
        var answers: [PublicationEntitlement] = []
        answers.reserveCapacity(readers)
        var bodies: [(head: [UInt8], tail: [UInt8])] = []
        bodies.reserveCapacity(readers)
        var kept: [(KeptEntitlement, body: (head: [UInt8], tail: [UInt8]))] = []
        kept.reserveCapacity(readers)

        let base = heapInUse()
        for receipt in receipts { histories.append(try decoder.decode(receipt).history) }
        let afterHistories = heapInUse()
        for history in histories { answers.append(engine.evaluate(history, publication: publication, at: at)) }
        let afterAnswers = heapInUse()
        for (index, answer) in answers.enumerated() { bodies.append(body(index, answer)) }
        let afterBodies = heapInUse()
        for (index, answer) in answers.enumerated() {
            let decisions = KeptEntitlement(answer)
            kept.append((decisions, body(index, decisions.asOf(at))))
        }
        histories.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
        bodies.removeAll(keepingCapacity: true)
        let now = heapInUse() - base
        // The receipts too: released earlier, they would count against the parts.
        withExtendedLifetime((receipts, kept)) {}
        let count = Double(readers)
        return CachedReaderBytes(
            readers: readers, history: Double(afterHistories - base) / count, fullAnswer: Double(afterAnswers - afterHistories) / count,
            checkBody: Double(afterBodies - afterAnswers) / count, now: Double(now) / count)
    }

    /// The bytes the heap holds in use: what glibc's `malloc_info` totals (every arena) as taken
    /// from the system, mapped chunks included, less its free chunks.
    static func heapInUse() -> Int {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(nil, "malloc_info") else { fail("malloc_info not found") }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { fail("open_memstream failed") }
        _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        let xml = buffer.map { String(cString: $0) } ?? ""
        free(buffer)
        // The totals over every arena come last.
        func last(_ element: String) -> Int {
            guard let start = xml.range(of: element + " size=\"", options: .backwards) else { fail("malloc_info gave no \(element)") }
            return Int(xml[start.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        func total(_ type: String) -> Int {
            guard let start = xml.range(of: "<total type=\"\(type)\" count=\"", options: .backwards) else { fail("malloc_info gave no \(type) total") }
            let rest = xml[start.upperBound...]
            guard let sizeStart = rest.range(of: "size=\"") else { return 0 }
            return Int(rest[sizeStart.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return last("<system type=\"current\"") + total("mmap") - total("fast") - total("rest")
    }

    /// The figures, per reader.
    var summary: String {
        func bytes(_ value: Double) -> String { String(format: "%.0f", value) }
        let before = history + fullAnswer + checkBody
        return """
            heap bytes a cached reader's parts take (malloc_info, over \(readers) generated readers): \
            before: history \(bytes(history)) + full entitlement \(bytes(fullAnswer)) + one check body \(bytes(checkBody)) \
            = \(bytes(before)); now: entitlement kept for issue decisions + one check body \(bytes(now)) \
            (\(String(format: "%.1f", before / now))× less); on top, the cache's slot and index entry and, inline in its \
            entries, \(MemoryLayout<KeptEntitlement>.stride) bytes an entitlement
            """
    }
}
