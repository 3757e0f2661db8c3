import Dispatch
@testable import MastheadCrypto
import Synchronization
import Testing

/// The verified-chain cache: it saves chain verifications, never signature checks.
struct ChainCacheTests {
    @Test func cacheHit_stillChecksTheSignature() throws {
        let verifier = try Tokens.verifier()
        let token = try Tokens.signed(chain: Tokens.chain())
        _ = try verifier.verify(token, now: Tokens.noClock)
        #expect(verifier.cachedChains == 1)
        let error = Tokens.refusal { try verifier.verify(Tokens.flippingSignatureByte(token), now: Tokens.noClock) }
        #expect(error == .invalidSignature(reason: "it does not verify with the leaf certificate's key over the token's header and payload"))
        let otherKey = try Tokens.signed(chain: Tokens.chain(), key: SigningKey(pem: Fixtures.text("other-key.pem")))
        #expect(throws: SignatureError.self) { try verifier.verify(otherKey, now: Tokens.noClock) }
        #expect(verifier.cachedChains == 1)
    }

    @Test func instantOutsideTheCachedWindow_isJudgedAgain() throws {
        let verifier = try Tokens.verifier()
        let chain = try Tokens.chain()
        _ = try verifier.verify(Tokens.signed(chain: chain), now: Tokens.noClock)
        // 2045-06-01: after the leaf expires (2045-01-01), before the intermediate and root do.
        let late = try Tokens.signed(chain: chain, payload: Tokens.payload(signedDate: 2_379_888_000_000))
        let error = Tokens.refusal { try verifier.verify(late, now: Tokens.noClock) }
        #expect(
            error == .certificateExpired(.leaf, subject: "CN=Masthead Test Signing,O=Masthead tests", notAfter: 2_366_841_600_000, at: 2_379_888_000_000))
        let early = try Tokens.signed(chain: chain, payload: Tokens.payload(signedDate: 1_433_116_800_000))
        guard case .certificateNotYetValid = Tokens.refusal({ try verifier.verify(early, now: Tokens.noClock) }) else {
            Issue.record("a signedDate before the cached window was not judged again")
            return
        }
    }

    @Test func cachedWindow_isTheChainsCommonValidity() throws {
        let chain = try Tokens.verifier().verifyChain(
            leaf: Fixtures.certificate("leaf.der"), intermediate: Fixtures.certificate("intermediate.der"), at: Fixtures.signedDate2020)
        #expect(chain.notBefore == 1_451_606_400_000)  // the leaf's 2016-01-01
        #expect(chain.notAfter == 2_366_841_600_000)  // the leaf's 2045-01-01
        #expect(chain.isValid(at: 2_366_841_600_999))  // judged to the second, as OpenSSL does
        #expect(!chain.isValid(at: 2_366_841_601_000))
    }

    @Test func failedChains_areNotCached() throws {
        let verifier = try Tokens.verifier()
        _ = Tokens.refusal { try verifier.verify(Tokens.signed(chain: Tokens.chain(leaf: "leaf-without-oid.der")), now: Tokens.noClock) }
        _ = Tokens.refusal { try verifier.verify(Tokens.signed(chain: Tokens.chain(leaf: "leaf-p384.der")), now: Tokens.noClock) }
        #expect(verifier.cachedChains == 0)
    }

    @Test func cache_holdsAtMostItsCapacity() throws {
        let verifier = try Tokens.verifier(cacheCapacity: 1)
        _ = try verifier.verify(Tokens.signed(chain: Tokens.chain()), now: Tokens.noClock)
        let expiredLeaf = try Tokens.signed(chain: Tokens.chain(leaf: "leaf-expired.der"), payload: Tokens.payload(signedDate: 1_496_275_200_000))  // 2017
        _ = try verifier.verify(expiredLeaf, now: Tokens.noClock)
        #expect(verifier.cachedChains == 1)
        let uncached = try Tokens.verifier(cacheCapacity: 0)
        _ = try uncached.verify(Tokens.signed(chain: Tokens.chain()), now: Tokens.noClock)
        #expect(uncached.cachedChains == 0)
    }

    @Test func verifications_runOnManyThreadsAtOnce_eachWithItsOwnOutcome() throws {
        let verifier = try Tokens.verifier(cacheCapacity: 2)
        let good = try Tokens.signed(chain: Tokens.chain())
        let tokens = [
            (good, true),
            (try Tokens.flippingSignatureByte(good), false),
            (try Tokens.signed(chain: Tokens.chain(leaf: "leaf-expired.der")), false),
            (try Tokens.signed(chain: Tokens.chain(leaf: "leaf-expired.der"), payload: Tokens.payload(signedDate: 1_496_275_200_000)), true),
            (try Tokens.signed(chain: Tokens.chain(leaf: "other-leaf.der", intermediate: "other-intermediate.der")), false),
        ]
        let mismatches = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<40 {
                let (token, valid) = tokens[(thread + round) % tokens.count]
                let accepted = (try? verifier.verify(token, now: Tokens.noClock)) != nil
                if accepted != valid { mismatches.add(1, ordering: .relaxed) }
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}
