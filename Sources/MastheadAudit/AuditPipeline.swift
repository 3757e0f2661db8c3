import Dispatch
import Synchronization

/// Runs an audit on every core with the input and output overlapped: while the workers decide
/// batch N, the first of them first writes the results of batch N-1 and reads batch N+1, then joins
/// the others. Results are written in input order.
struct AuditPipeline {
    /// Records read before the workers decide them together; bounds memory to a few megabytes.
    static let batchSize = 4096
    /// Bytes of the receipts file read at a time, straight into the memory of the lines' block.
    static let readSize = 8 << 20
    /// A batch stops taking blocks once it holds this many bytes, whatever its line count, so
    /// memory stays bounded when lines are long.
    static let batchBytes = 24 << 20
    /// Likewise for histories read from the service's database: a batch stops taking users once
    /// it holds this many transactions.
    static let batchTransactions = 100_000
    /// Records a worker takes at a time from the batch.
    static let chunkSize = 32

    /// One auditor per worker.
    var auditors: [Auditor]

    /// Decides every batch `read` returns (an empty batch ends the input) and hands each batch
    /// with its outcomes, in order, to `write`. `read` and `write` never run at the same time as
    /// each other, and a failure of either stops the audit.
    mutating func run(
        read: @escaping () throws(AuditError) -> [AuditRecord], write: @escaping ([AuditRecord], [Auditor.Outcome]) throws(AuditError) -> Void
    ) throws(AuditError) {
        let workers = auditors.count
        let io = InputOutput(read: read, write: write)
        var current = try read()
        while !current.isEmpty || !io.previous.batch.isEmpty {
            var outcomes = [Auditor.Outcome](repeating: .skipped, count: current.count)
            let count = current.count
            let next = Atomic<Int>(0)
            auditors.withUnsafeMutableBufferPointer { auditorSlots in
                outcomes.withUnsafeMutableBufferPointer { outcomeSlots in
                    current.withUnsafeBufferPointer { records in
                        let shared = DisjointSlots(auditors: auditorSlots.baseAddress!, outcomes: outcomeSlots.baseAddress!, records: records.baseAddress!)
                        DispatchQueue.concurrentPerform(iterations: workers) { worker in
                            if worker == 0 { io.advance(readMore: count > 0) }
                            // Workers take chunks in turn, so one given long lines does not leave
                            // the other idle.
                            while true {
                                let start = next.add(Self.chunkSize, ordering: .relaxed).oldValue
                                if start >= count { break }
                                for index in start..<min(start + Self.chunkSize, count) {
                                    shared.outcomes[index] = shared.auditors[worker].audit(shared.records[index])
                                }
                            }
                        }
                    }
                }
            }
            if let failure = io.failure { throw failure }
            io.previous = (current, outcomes)
            current = io.upcoming
            io.upcoming = []
        }
    }
}

extension AuditPipeline {
    /// The input and output side of the pipeline. Only the first worker touches it while the batch
    /// is being decided, and only the caller between batches: never two threads at once.
    private final class InputOutput: @unchecked Sendable {
        let read: () throws(AuditError) -> [AuditRecord]
        let write: ([AuditRecord], [Auditor.Outcome]) throws(AuditError) -> Void
        /// The batch decided last, with its outcomes, to write next.
        var previous: (batch: [AuditRecord], outcomes: [Auditor.Outcome]) = ([], [])
        /// The batch read ahead.
        var upcoming: [AuditRecord] = []
        var failure: AuditError?

        init(read: @escaping () throws(AuditError) -> [AuditRecord], write: @escaping ([AuditRecord], [Auditor.Outcome]) throws(AuditError) -> Void) {
            self.read = read
            self.write = write
        }

        /// Writes the previous batch's results and reads the next batch.
        func advance(readMore: Bool) {
            do throws(AuditError) {
                try write(previous.batch, previous.outcomes)
                previous = ([], [])
                if readMore { upcoming = try read() }
            } catch {
                failure = error
            }
        }
    }

    /// The buffers the audit workers share: worker `w` touches only auditor `w` and the outcomes of
    /// the chunks it took, so no two threads ever write the same element.
    private struct DisjointSlots: @unchecked Sendable {
        let auditors: UnsafeMutablePointer<Auditor>
        let outcomes: UnsafeMutablePointer<Auditor.Outcome>
        let records: UnsafePointer<AuditRecord>
    }
}
