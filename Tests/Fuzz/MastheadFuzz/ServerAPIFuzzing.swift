import MastheadFormats

/// The App Store Server API target: one input read as each answer the client reads (statuses,
/// transaction history, transaction info, notification history, order lookup, app transaction
/// info, error), before any
/// signed token in it is verified.
enum ServerAPIFuzzing {
    static func run(_ bytes: [UInt8]) {
        read { () throws(FormatError) in try StatusResponse(decoding: bytes) }
        read { () throws(FormatError) in try HistoryResponse(decoding: bytes) }
        read { () throws(FormatError) in try TransactionInfoResponse(decoding: bytes) }
        read { () throws(FormatError) in try NotificationHistoryResponse(decoding: bytes) }
        read { () throws(FormatError) in try OrderLookupResponse(decoding: bytes) }
        read { () throws(FormatError) in try AppTransactionInfoResponse(decoding: bytes) }
        read { () throws(FormatError) in try ErrorPayload(decoding: bytes) }
    }

    /// Reads the input twice: a reader must give the same answer, or the same error, each time.
    static func read<Answer: Equatable>(_ decode: () throws(FormatError) -> Answer) {
        let first = Result { () throws(FormatError) in try decode() }
        let second = Result { () throws(FormatError) in try decode() }
        switch (first, second) {
        case (.success(let a), .success(let b)): precondition(a == b, "the same bytes read twice differ")
        case (.failure(let a), .failure(let b)): precondition(a == b, "the same bytes fail differently")
        default: preconditionFailure("the same bytes read once and refused once")
        }
    }
}
