import Masthead
import MastheadStorage

/// Gift codes: made in batches, redeemed once each.
extension EntitlementService {
    /// The most codes one request makes.
    static let maxGiftCodesPerBatch = 10_000

    /// Makes `count` new codes carrying `offer` and stores their hashes; `completion` runs after
    /// the commit with each code and its stored id (the only time the codes are known), or the error.
    func createGiftCodes(count: Int, offer: GiftOffer, completion: @escaping @Sendable (Result<[(id: Int64, code: GiftCode)], any Error>) -> Void) {
        let now = clock()
        let codes = (0..<count).map { _ in GiftCode.random() }
        let hashes: [[UInt8]]
        do { hashes = try codes.map { code in try code.hash() } } catch { return completion(.failure(error)) }
        write({ store in
            let ids = try store.createGiftCodes(hashes: hashes, offer: offer, now: now)
            return (Array(zip(ids, codes).map { (id: $0, code: $1) }), [])
        }, completion: completion)
    }

    /// Redeems a code for a user, at most once whatever other requests and instances do;
    /// `completion` runs after the commit with what came of it (a grant only when this call
    /// redeemed the code), or the error.
    func redeemGiftCode(_ code: GiftCode, userId: String, completion: @escaping @Sendable (Result<GiftRedemption, any Error>) -> Void) {
        let now = clock()
        let hash: [UInt8]
        do { hash = try code.hash() } catch { return completion(.failure(error)) }
        write({ store in
            let redemption = try store.redeemGiftCode(hash: hash, userId: userId, now: now)
            guard case .redeemed = redemption else { return (redemption, []) }
            return (redemption, [.user(userId)])
        }, completion: completion)
    }

    /// Counts a user's attempt to redeem a code now; nil when allowed, else the seconds to wait.
    func admitRedemption(userId: String) -> Int? { redemptionLimiter.admit(userId, now: clock()) }
}
