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

    var status: Int {
        switch self {
        case .invalidBatch, .invalidRedemption: 400
        case .unknown: 404
        case .redeemed: 409
        case .expired: 410
        case .tooManyAttempts: 429
        }
    }

    var code: String {
        switch self {
        case .invalidBatch: "invalid_gift_codes"
        case .invalidRedemption: "invalid_redemption"
        case .unknown: "unknown_gift_code"
        case .expired: "gift_code_expired"
        case .redeemed: "gift_code_redeemed"
        case .tooManyAttempts: "too_many_attempts"
        }
    }

    var message: String {
        switch self {
        case .invalidBatch(let reason): "invalid gift codes request: \(reason)"
        case .invalidRedemption(let reason): "invalid redemption: \(reason); send {\"code\": \"XXXX-XXXX-XXXX-XXXX\"}"
        case .unknown: "no gift code is known by that code"
        case .expired(let redeemBy): "the gift code could be redeemed until \(redeemBy)"
        case .redeemed: "the gift code was redeemed already"
        case .tooManyAttempts(let seconds): "too many gift codes tried for this user; try again in \(seconds) s"
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
