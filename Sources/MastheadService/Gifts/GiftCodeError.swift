/// The errors of the gift code routes.
enum GiftCodeError: ServiceFailure {
    /// The body of a batch of codes is not what it should be: where and why.
    case invalidBatch(String)
    /// The body of a redemption is not `{"code": "…"}`: why.
    case invalidRedemption(String)
    /// No code is known by what was sent (never made, mistyped or malformed: not told apart).
    case unknown
    /// The code could be redeemed only before this instant.
    case expired(redeemBy: String)
    /// The code was redeemed already.
    case redeemed
    /// The user tried too many codes lately on this instance; the seconds to wait.
    case tooManyAttempts(retryAfter: Int)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidBatch(let reason): (400, "invalid_gift_codes", "invalid gift codes request: \(reason)")
        case .invalidRedemption(let reason): (400, "invalid_redemption", "invalid redemption: \(reason); send {\"code\": \"XXXX-XXXX-XXXX-XXXX\"}")
        case .unknown: (404, "unknown_gift_code", "no gift code is known by that code")
        case .expired(let redeemBy): (410, "gift_code_expired", "the gift code could be redeemed until \(redeemBy)")
        case .redeemed: (409, "gift_code_redeemed", "the gift code was redeemed already")
        case .tooManyAttempts(let seconds): (429, "too_many_attempts", "too many gift codes tried for this user; try again in \(seconds) s")
        }
    }

    /// A 429 says when to try again in `Retry-After`.
    var headers: [(name: String, value: String)] {
        guard case .tooManyAttempts(let seconds) = self else { return [] }
        return [("Retry-After", String(seconds))]
    }

    static var examples: [GiftCodeError] {
        [.invalidBatch(""), .invalidRedemption(""), .unknown, .expired(redeemBy: ""), .redeemed, .tooManyAttempts(retryAfter: 1)]
    }
}
