import Foundation
import Masthead
import MastheadCrypto
import MastheadFormats
import MastheadTestSupport
import Testing

/// Signed data taken in end to end: chain and signature, app checks, payload, in that order.
struct SignedDataVerifierTests {
    static let app = AppIdentity(bundleId: "com.example.masthead", appAppleId: 42, environments: [.production, .sandbox])

    static func signer() throws -> JWSSigner { try TestChain.signer() }

    /// A verifier whose clock reads `now` (milliseconds; 2020-07-02 by default, within the test chain's validity).
    static func verifier(trust: SignedDataVerifier.Trust? = nil, now: Int64 = 1_593_648_000_000) throws -> SignedDataVerifier {
        let trust = try trust ?? .verifySignatures(JWSVerifier(rootCertificates: [TestChain.root()]))
        return SignedDataVerifier(trust: trust, app: app, now: { Instant(milliseconds: now) })
    }

    /// A signed transaction of the test chain; `revoked` adds a refund at 2020-03-10.
    static func transaction(bundleId: String = "com.example.masthead", signedDate: Int64 = 1_583_020_800_000, revoked: Bool = false) throws -> String {
        let revocation = revoked ? ",\"revocationDate\":1583798400000,\"revocationReason\":1" : ""
        let payload = """
            {"transactionId":"2000","originalTransactionId":"1000","bundleId":"\(bundleId)","productId":"monthly",\
            "purchaseDate":1582934400000,"expiresDate":1585612800000,"type":"Auto-Renewable Subscription",\
            "inAppOwnershipType":"PURCHASED","signedDate":\(signedDate),"environment":"Production"\(revocation)}
            """
        return try signer().sign(Array(payload.utf8))
    }

    @Test func transaction_verifiedAndRead() throws {
        let signed = try Self.verifier().transaction(try Self.transaction(), path: "$.signedTransactions[0]")
        #expect(signed.transaction.transactionId == "2000")
        #expect(signed.transaction.signedDate == Instant(milliseconds: 1_583_020_800_000))
        #expect(signed.transaction.environment == .production)
    }

    @Test func flippedSignature_isRefused_namingTheTokensPath() throws {
        var token = Array(try Self.transaction().utf8)
        token[token.count - 3] = token[token.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect {
            try Self.verifier().transaction(String(decoding: token, as: UTF8.self), path: "$.signedTransactions[0]")
        } throws: { error in
            guard case FormatError.signatureRefused(let path, _) = error else { return false }
            return path == "$.signedTransactions[0]"
        }
    }

    @Test func rootNotConfigured_isRefused() throws {
        let verifier = try Self.verifier(trust: .verifySignatures(JWSVerifier()))  // Apple Root CA - G3 only
        #expect {
            try verifier.transaction(try Self.transaction(), path: "$")
        } throws: { error in
            guard case FormatError.signatureRefused(_, .untrustedChain) = error else { return false }
            return true
        }
    }

    @Test func anotherAppsTransaction_isRefused_afterItsSignatureVerified() throws {
        #expect(throws: FormatError.wrongBundleId(path: "$.bundleId", expected: "com.example.masthead", found: "com.example.other")) {
            try Self.verifier().transaction(try Self.transaction(bundleId: "com.example.other"), path: "$")
        }
    }

    @Test func trustedAlready_readsWithoutVerifying_butStillChecksShapeAndApp() throws {
        let verifier = try Self.verifier(trust: .trustedAlready)
        let rootless = try Self.verifier(trust: .verifySignatures(JWSVerifier()))
        let token = try Self.transaction()
        #expect(throws: FormatError.self) { try rootless.transaction(token, path: "$") }
        #expect(try verifier.transaction(token, path: "$").transaction.transactionId == "2000")
        #expect(throws: FormatError.self) { try verifier.transaction("not.a-token", path: "$") }
        #expect(throws: FormatError.self) { try verifier.transaction(try Self.transaction(bundleId: "com.example.other"), path: "$") }
    }

    @Test func refundThenReversal_latestSignedCopyWins_R2_8() throws {
        let verifier = try Self.verifier()
        let refunded = try verifier.transaction(try Self.transaction(signedDate: 1_583_798_400_000, revoked: true), path: "$").transaction
        let reversed = try verifier.transaction(try Self.transaction(signedDate: 1_584_000_000_000), path: "$").transaction
        let history = PurchaseHistory(transactions: [reversed, refunded])
        #expect(history.transactions.count == 1)
        #expect(history.transactions[0].countedCancellation == nil)
    }

    @Test func notification_verifiesItsPayloadAndTheTransactionItCarries() throws {
        let transaction = try Self.transaction()
        let body = """
            {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",\
            "data":{"appAppleId":42,"bundleId":"com.example.masthead","environment":"Production","signedTransactionInfo":"\(transaction)"},\
            "version":"2.0","signedDate":1583020800000}
            """
        let notification = try Self.verifier().notification(try Self.signer().sign(Array(body.utf8)), path: "$.signedPayload")
        #expect(notification.payload.notificationType == .subscribed)
        #expect(notification.history.transactions.map(\.transactionId) == ["2000"])

        // One character of the signature changed (ten in, where every bit is the signature's), to
        // another: the signature is random, so a fixed replacement could equal what was there.
        let signatureStart = try #require(transaction.lastIndex(of: ".")).utf16Offset(in: transaction) + 1
        var characters = Array(transaction)
        characters[signatureStart + 10] = characters[signatureStart + 10] == "A" ? "B" : "A"
        let tampered = body.replacingOccurrences(of: transaction, with: String(characters))
        #expect {
            try Self.verifier().notification(try Self.signer().sign(Array(tampered.utf8)), path: "$.signedPayload")
        } throws: { error in
            guard case FormatError.signatureRefused(let path, _) = error else { return false }
            return path == "$.signedPayload.data.signedTransactionInfo"
        }
    }

    /// A token whose payload has no `signedDate` has its chain judged at the verifier's clock, not
    /// the system's (the test chain is valid 2016–2045): read at 2020, refused at 2050 (expired)
    /// and at 2010 (not yet valid).
    @Test(arguments: [(Int64(1_593_648_000_000), "read"), (2_524_608_000_000, "expired"), (1_262_304_000_000, "not yet valid")])
    func undatedToken_chainJudgedAtTheCallersClock(now: Int64, outcome: String) throws {
        let body = """
            {"notificationType":"TEST","notificationUUID":"9b1c8f0e-2a4d-4c6b-8e3f-5d7a9b1c2e4f",\
            "data":{"appAppleId":42,"bundleId":"com.example.masthead","environment":"Production"},"version":"2.0"}
            """
        let token = try Self.signer().sign(Array(body.utf8))
        let verifier = try Self.verifier(now: now)
        switch outcome {
        case "read":
            #expect(try verifier.notification(token, path: "$.signedPayload").payload.notificationType == .test)
        default:
            #expect {
                try verifier.notification(token, path: "$.signedPayload")
            } throws: { error in
                guard case FormatError.signatureRefused(_, let reason) = error else { return false }
                switch reason {
                case SignatureError.certificateExpired(_, _, _, let at): return outcome == "expired" && at == now
                case SignatureError.certificateNotYetValid(_, _, _, let at): return outcome == "not yet valid" && at == now
                default: return false
                }
            }
        }
    }
}
