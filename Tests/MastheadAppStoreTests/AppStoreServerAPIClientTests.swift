import Foundation
import Masthead
import MastheadAppStore
import MastheadFormats
import MastheadTestSupport
import Synchronization
import Testing

/// Every endpoint of the App Store Server API client against the fake, with its retries,
/// fallbacks, tokens and verification.
struct AppStoreServerAPIClientTests {
    /// A fake knowing one customer in production: five monthly transactions of subscription
    /// `o1`, its status, and each transaction by id.
    static func fake(environment: String = "Production") throws -> FakeAppStoreServerAPI {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        let start = SignedAnswers.now - 150 * SignedAnswers.day
        var history: [String] = []
        for index in 0..<5 {
            let from = start + Int64(index) * 30 * SignedAnswers.day
            history.append(try SignedAnswers.transaction("t\(index + 1)", original: "o1", from: from, to: from + 30 * SignedAnswers.day, environment: environment))
        }
        let renewal = try SignedAnswers.renewal(original: "o1", signed: start, environment: environment)
        let customer = FakeAppStoreServerAPI.Customer(
            transactionIds: ["o1", "t1", "t2", "t3", "t4", "t5"], history: history,
            statuses: [(originalTransactionId: "o1", status: 1, signedTransaction: history[4], signedRenewal: renewal)])
        fake.state.withLock { state in
            var store = FakeAppStoreServerAPI.Store()
            store.customers = [customer]
            for (index, token) in history.enumerated() { store.transactions["t\(index + 1)"] = token }
            if environment == "Production" { state.production = store } else { state.sandbox = store }
        }
        return fake
    }

    @Test func subscriptionStatuses_answersTheVerifiedLatestTransactionAndRenewal() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let statuses = try SignedAnswers.client(fake).subscriptionStatuses(transactionId: "t2", servers: .only(.production))
        #expect(statuses.environment == .production)
        #expect(statuses.subscriptions.count == 1)
        #expect(statuses.subscriptions[0].status == .active)
        #expect(statuses.subscriptions[0].transaction?.transaction.transactionId == "t5")
        #expect(statuses.subscriptions[0].renewal?.renewal.originalTransactionId == "o1")
        #expect(statuses.history.transactions.map(\.transactionId) == ["t5"])
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/t2"])
    }

    @Test func transactionHistory_followsRevisions_toTheEnd() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let history = try SignedAnswers.client(fake).transactionHistory(transactionId: "o1", servers: .only(.production))
        #expect(history.transactions.map(\.transaction.transactionId) == ["t1", "t2", "t3", "t4", "t5"])
        #expect(history.history.transactions.count == 5)
        #expect(
            fake.seen.map(\.target) == [
                "/production/inApps/v2/history/o1?sort=ASCENDING", "/production/inApps/v2/history/o1?sort=ASCENDING&revision=2",
                "/production/inApps/v2/history/o1?sort=ASCENDING&revision=4",
            ])
    }

    @Test func transactionInfo_answersTheVerifiedTransaction() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let transaction = try SignedAnswers.client(fake).transactionInfo(transactionId: "t3", servers: .only(.production))
        #expect(transaction.transaction.transactionId == "t3")
        #expect(transaction.payload.bundleId == SignedAnswers.bundleId)
    }

    @Test func notificationHistory_followsPaginationTokens_toTheEnd_withinTheRange() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        let start = SignedAnswers.now - 10 * SignedAnswers.day
        let transaction = try SignedAnswers.transaction("n1", original: "n1", from: start, to: start + 30 * SignedAnswers.day)
        var sent: [(signedPayload: String, sent: Int64)] = []
        for index in 0..<6 {
            let uuid = "00000000-0000-0000-0000-00000000000\(index)"
            sent.append((try SignedAnswers.notification(uuid, transaction: transaction, signed: start + Int64(index) * SignedAnswers.day), start + Int64(index) * SignedAnswers.day))
        }
        fake.state.withLock { $0.production.notifications = sent }
        // The last one lies past the range's end.
        let entries = try SignedAnswers.client(fake).notificationHistory(
            from: Instant(milliseconds: start), to: Instant(milliseconds: start + 5 * SignedAnswers.day))
        #expect(entries.map(\.notification.payload.notificationUUID) == (0..<5).map { "00000000-0000-0000-0000-00000000000\($0)" })
        #expect(entries.map(\.signedPayload) == sent.prefix(5).map(\.signedPayload))
        #expect(entries[0].notification.transaction?.transaction.transactionId == "n1")
        #expect(entries[0].sendAttempts.map(\.sendAttemptResult) == ["SUCCESS"])
        #expect(
            fake.seen.map(\.target) == [
                "/production/inApps/v1/notifications/history", "/production/inApps/v1/notifications/history?paginationToken=page-2",
                "/production/inApps/v1/notifications/history?paginationToken=page-4",
            ])
        #expect(fake.seen[0].body == #"{"startDate":\#(start),"endDate":\#(start + 5 * SignedAnswers.day)}"#)
    }

    @Test func lookUpOrder_answersValidOrders_andInvalidOnes() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let token = try fake.state.withLock { try #require($0.production.transactions["t1"]) }
        fake.state.withLock { $0.production.orders["MQ7Z1TEST"] = [token] }
        let client = try SignedAnswers.client(fake)
        let found = try client.lookUpOrder(orderId: "MQ7Z1TEST")
        #expect(found.isValid)
        #expect(found.transactions.map(\.transaction.transactionId) == ["t1"])
        let unknown = try client.lookUpOrder(orderId: "NOSUCHORDER")
        #expect(!unknown.isValid)
        #expect(unknown.transactions.isEmpty)
    }

    @Test func notFoundInProduction_isAskedInTheSandbox() throws {
        let fake = try Self.fake(environment: "Sandbox")
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake)
        let statuses = try client.subscriptionStatuses(transactionId: "o1", servers: .productionThenSandbox)
        #expect(statuses.environment == .sandbox)
        #expect(statuses.subscriptions.first?.transaction?.transaction.environment == .sandbox)
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/o1", "/sandbox/inApps/v1/subscriptions/o1"])
        #expect(try client.transactionHistory(transactionId: "o1", servers: .productionThenSandbox).transactions.count == 5)
        #expect(try client.transactionInfo(transactionId: "t1", servers: .productionThenSandbox).transaction.environment == .sandbox)
    }

    @Test func notFoundAnywhere_isRefused_withAppleCode() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        #expect(throws: AppStoreError.refused(
            endpoint: "GET /inApps/v1/subscriptions/nobody (Sandbox)", status: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
        ) { try SignedAnswers.client(fake).subscriptionStatuses(transactionId: "nobody", servers: .productionThenSandbox) }
    }

    @Test func rateLimited_waitsWhatRetryAfterAsks_thenSucceeds() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(429, 2), (429, 1)] }
        let sleeps = Sleeps()
        let statuses = try SignedAnswers.client(fake, sleeps: sleeps).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
        #expect(statuses.subscriptions.count == 1)
        #expect(sleeps.recorded.count == 2)
        #expect(sleeps.recorded[0] >= 2000)
        #expect(sleeps.recorded[1] >= 1000)
        #expect(fake.seen.count == 3)
    }

    @Test func rateLimited_pastTheWaitCap_givesUp_withoutWaiting() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(429, 3600)] }
        let sleeps = Sleeps()
        #expect(throws: AppStoreError.rateLimited(endpoint: "GET /inApps/v1/subscriptions/o1 (Production)", attempts: 1, retryAfterSeconds: 3600)) {
            try SignedAnswers.client(fake, sleeps: sleeps).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
        }
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func serverErrors_areRetriedWithBackoff_thenSucceed() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(500, nil), (503, nil)] }
        let sleeps = Sleeps()
        #expect(try SignedAnswers.client(fake, sleeps: sleeps).transactionInfo(transactionId: "t1", servers: .only(.production)).transaction.transactionId == "t1")
        #expect(sleeps.recorded == [10, 20])
        #expect(fake.seen.count == 3)
    }

    @Test func serverErrors_pastTheAttempts_failClearly() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = Array(repeating: (500, nil), count: 5) }
        #expect(throws: AppStoreError.unavailable(endpoint: "GET /inApps/v1/transactions/t1 (Production)", attempts: 3, last: "HTTP 500, error 5000000")) {
            try SignedAnswers.client(fake, configure: { $0.attempts = 3 }).transactionInfo(transactionId: "t1", servers: .only(.production))
        }
        #expect(fake.seen.count == 3)
    }

    @Test func networkFailures_areRetried_thenFailClearly() throws {
        let fake = try Self.fake()
        let closed = fake.productionURL
        fake.stop()
        let sleeps = Sleeps()
        do {
            _ = try SignedAnswers.client(fake, sleeps: sleeps, configure: { $0.attempts = 3 }).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
            Issue.record("answered without a server")
        } catch {
            guard case .unavailable(let endpoint, let attempts, let last)? = error as? AppStoreError else {
                Issue.record("\(error)")
                return
            }
            #expect(endpoint == "GET /inApps/v1/subscriptions/o1 (Production)")
            #expect(attempts == 3)
            #expect(last.contains(closed))
        }
        #expect(sleeps.recorded == [10, 20])
    }

    /// A refused token is a configuration error naming the key id and issuer id, reported once
    /// within the memory window: the next call to that environment fails the same way without asking Apple.
    @Test func unauthorized_isReportedOnce_andLaterCallsMakeNoRequest() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(401, nil)] }
        let client = try SignedAnswers.client(fake)
        let expected = AppStoreError.notAuthorized(
            status: 401, keyId: FakeAppStoreServerAPI.keyId, issuerId: FakeAppStoreServerAPI.issuerId, bundleId: SignedAnswers.bundleId,
            errorCode: 4_010_000, errorMessage: "Failure on demand.")
        #expect(throws: expected) { try client.subscriptionStatuses(transactionId: "o1", servers: .only(.production)) }
        #expect(throws: expected) { try client.transactionHistory(transactionId: "o1", servers: .only(.production)) }
        #expect(fake.seen.count == 1)
        #expect(expected.description.contains("key id \(FakeAppStoreServerAPI.keyId)"))
    }

    /// A 401 from the sandbox, reached by falling back for an unknown id, neither disables
    /// production nor is remembered.
    @Test func unauthorizedSandboxFallback_doesNotDisableProduction() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.sandboxFailures = [(401, nil)] }
        let client = try SignedAnswers.client(fake)
        #expect(throws: AppStoreError.self) { try client.subscriptionStatuses(transactionId: "nobody", servers: .productionThenSandbox) }
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/nobody", "/sandbox/inApps/v1/subscriptions/nobody"])
        #expect(try client.subscriptionStatuses(transactionId: "o1", servers: .productionThenSandbox).subscriptions.count == 1)
        #expect(fake.seen.last?.target == "/production/inApps/v1/subscriptions/o1")
    }

    /// A refusal of production is not one of the sandbox.
    @Test func unauthorizedProduction_doesNotDisableTheSandbox() throws {
        let fake = try Self.fake(environment: "Sandbox")
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(401, nil)] }
        let client = try SignedAnswers.client(fake)
        #expect(throws: AppStoreError.self) { try client.lookUpOrder(orderId: "X", environment: .production) }
        #expect(!(try client.lookUpOrder(orderId: "X", environment: .sandbox).isValid))
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/lookup/X", "/sandbox/inApps/v1/lookup/X"])
    }

    /// Past the memory window the client asks again, with a newly signed token.
    @Test func unauthorized_afterTheWindow_asksAgain_withANewToken() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(401, nil)] }
        let clock = TokenClock(SignedAnswers.now)
        let client = try SignedAnswers.client(fake, now: { clock.read() })
        #expect(throws: AppStoreError.self) { try client.transactionInfo(transactionId: "t1", servers: .only(.production)) }
        clock.advance(minutes: 4)
        #expect(throws: AppStoreError.self) { try client.transactionInfo(transactionId: "t1", servers: .only(.production)) }
        #expect(fake.seen.count == 1)
        clock.advance(minutes: 2)
        #expect(try client.transactionInfo(transactionId: "t1", servers: .only(.production)).transaction.transactionId == "t1")
        #expect(fake.seen.count == 2)
        #expect(fake.seen[1].token != fake.seen[0].token)
    }

    /// The fake checks every token: one signed with another key, or with another issuer id, is refused.
    @Test(arguments: [("other-key.pem", FakeAppStoreServerAPI.issuerId, "signature"), ("leaf-key.pem", "another-issuer", "iss is not")])
    func badToken_isRefusedByTheFake(key: String, issuerId: String, refusal: String) throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let credentials = try SignedAnswers.credentials(keyPath: TestChain.directory.appendingPathComponent(key).path, issuerId: issuerId)
        do {
            _ = try SignedAnswers.client(fake, credentials: credentials).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
            Issue.record("a bad token was accepted")
        } catch {
            guard case .notAuthorized(401, _, let refusedIssuer, _, _, _)? = error as? AppStoreError else {
                Issue.record("\(error)")
                return
            }
            #expect(refusedIssuer == issuerId)
        }
        #expect(fake.seen.count == 1)
        #expect(fake.seen[0].refusal?.contains(refusal) == true, "\(fake.seen[0].refusal ?? "accepted")")
    }

    /// One token serves several requests; a new one is signed once fewer than five minutes are left.
    @Test func token_isReusedAcrossCalls_andRenewedNearExpiry() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let clock = TokenClock(SignedAnswers.now)
        let client = try SignedAnswers.client(fake, now: { clock.read() })
        _ = try client.subscriptionStatuses(transactionId: "o1", servers: .only(.production))
        _ = try client.transactionHistory(transactionId: "o1", servers: .only(.production))
        _ = try client.transactionInfo(transactionId: "t1", servers: .only(.production))
        clock.advance(minutes: 14)
        _ = try client.transactionInfo(transactionId: "t2", servers: .only(.production))
        let beforeRenewal = Set(fake.seen.compactMap(\.token))
        #expect(beforeRenewal.count == 1)
        clock.advance(minutes: 2)
        _ = try client.transactionInfo(transactionId: "t3", servers: .only(.production))
        let tokens = fake.seen.compactMap(\.token)
        #expect(Set(tokens).count == 2)
        #expect(tokens.last.map(beforeRenewal.contains) == false)
        #expect(fake.seen.allSatisfy { $0.refusal == nil }, "\(fake.seen.compactMap(\.refusal))")
    }

    /// The fake refuses an expired token: the token's claims are checked against its clock.
    @Test func expiredToken_isRefusedByTheFake() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake, now: { SignedAnswers.now - 3_600_000 })
        #expect(throws: AppStoreError.self) { try client.subscriptionStatuses(transactionId: "o1", servers: .only(.production)) }
        #expect(fake.seen.first?.refusal == "expired")
    }

    @Test func tamperedSignedAnswer_isRefused_namingItsPath() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { state in
            let token = state.production.customers[0].statuses[0].signedTransaction
            var characters = Array(token)
            characters[characters.count - 10] = characters[characters.count - 10] == "A" ? "B" : "A"
            state.production.customers[0].statuses[0].signedTransaction = String(characters)
        }
        do {
            _ = try SignedAnswers.client(fake).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
            Issue.record("a tampered answer was accepted")
        } catch {
            guard case .signedDataRefused(_, .signatureRefused(let path, _))? = error as? AppStoreError else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "$.data[0].lastTransactions[0].signedTransactionInfo")
        }
    }

    @Test func answerPastTheSizeLimit_isRefused() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        #expect(throws: AppStoreError.answerTooLarge(endpoint: "GET /inApps/v2/history/o1 (Production)", limit: 512)) {
            try SignedAnswers.client(fake, transport: HTTPSTransport(maxResponseBytes: 512)).transactionHistory(transactionId: "o1", servers: .only(.production))
        }
    }

    @Test func httpBaseURL_isRefused_unlessAllowed() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        #expect(throws: AppStoreError.invalidBaseURL(setting: "appStoreServerAPIProductionURL", url: fake.productionURL)) {
            try SignedAnswers.client(fake, configure: { $0.allowsHTTP = false })
        }
    }

    /// Neither the credentials' description nor an error names the key's bytes.
    @Test func theKey_isNeverPrinted() throws {
        let pem = try FakeAppStoreServerAPI.privateKeyPEM()
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let credentials = try SignedAnswers.credentials()
        #expect(!"\(credentials)".contains(body.prefix(16)))
        #expect("\(credentials)".contains(FakeAppStoreServerAPI.keyId))
        let broken = pem.replacingOccurrences(of: body.prefix(40), with: String(body.prefix(40).reversed()))
        do {
            _ = try AppStoreCredentials(keyId: "K", issuerId: "I", privateKeyPEM: broken)
            Issue.record("a broken key was read")
        } catch {
            #expect(!error.description.contains(body.prefix(16)))
            #expect(!error.description.contains(broken.split(separator: "\n")[1].prefix(16)))
        }
    }

    /// A key kept as one line with literal `\n` (a `.env` file, a secret manager) is read as its lines.
    @Test func credentials_readAOneLineKeyWithLiteralNewlines() throws {
        let pem = try FakeAppStoreServerAPI.privateKeyPEM()
        let oneLine = pem.split(separator: "\n").joined(separator: "\\n")
        let credentials = try AppStoreCredentials(keyId: FakeAppStoreServerAPI.keyId, issuerId: FakeAppStoreServerAPI.issuerId, privateKeyPEM: oneLine)
        let fake = try Self.fake()
        defer { fake.stop() }
        #expect(try SignedAnswers.client(fake, credentials: credentials).transactionInfo(transactionId: "t1", servers: .only(.production)).transaction.transactionId == "t1")
    }

    /// A broken one-line key's error quotes none of its body.
    @Test func credentials_brokenOneLineKey_errorQuotesNoneOfTheKey() throws {
        let pem = try FakeAppStoreServerAPI.privateKeyPEM()
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        // Joined with "\\r" (not taken as a line break): the whole key is one line.
        let oneLine = pem.split(separator: "\n").joined(separator: "\\r")
        do {
            _ = try AppStoreCredentials(keyId: "K", issuerId: "I", privateKeyPEM: oneLine)
            Issue.record("a one-line key without line breaks was read")
        } catch {
            let pieces = stride(from: 0, to: body.count - 8, by: 4).map { String(body.dropFirst($0).prefix(8)) }
            #expect(pieces.first(where: error.description.contains) == nil, "the error quotes the key")
        }
    }

    /// A `Retry-After` too large to count in milliseconds is past the cap: no trap, no wait.
    @Test func rateLimited_retryAfterOfIntMax_givesUp_withoutWaiting() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(429, Int.max)] }
        let sleeps = Sleeps()
        #expect(throws: AppStoreError.rateLimited(endpoint: "GET /inApps/v1/subscriptions/o1 (Production)", attempts: 1, retryAfterSeconds: Int.max)) {
            try SignedAnswers.client(fake, sleeps: sleeps).subscriptionStatuses(transactionId: "o1", servers: .only(.production))
        }
        #expect(sleeps.recorded.isEmpty)
    }

    /// A backoff whose doubling would overflow waits the cap.
    @Test func backoff_pastIntMax_waitsTheCap() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(500, nil), (500, nil)] }
        let sleeps = Sleeps()
        let client = try SignedAnswers.client(fake, sleeps: sleeps, configure: { $0.backoffMilliseconds = 1 << 62 })
        #expect(try client.transactionInfo(transactionId: "t1", servers: .only(.production)).transaction.transactionId == "t1")
        #expect(sleeps.recorded == [5000, 5000])
    }

    /// A known environment is asked alone: a sandbox answer for a production id would be
    /// someone else's history.
    @Test func knownEnvironment_isAskedAlone_withoutFallingBack() throws {
        let fake = try Self.fake(environment: "Sandbox")
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake)
        #expect(throws: AppStoreError.refused(
            endpoint: "GET /inApps/v1/subscriptions/o1 (Production)", status: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
        ) { try client.subscriptionStatuses(transactionId: "o1", servers: .only(.production)) }
        #expect(throws: AppStoreError.self) { try client.transactionHistory(transactionId: "o1", servers: .only(.production)) }
        #expect(throws: AppStoreError.self) { try client.transactionInfo(transactionId: "t1", servers: .only(.production)) }
        #expect(fake.seen.allSatisfy { $0.target.hasPrefix("/production/") }, "\(fake.seen.map(\.target))")
        #expect(try client.subscriptionStatuses(transactionId: "o1", servers: .only(.sandbox)).environment == .sandbox)
        #expect(fake.seen.last?.target == "/sandbox/inApps/v1/subscriptions/o1")
    }

    /// Apple's "try again" 404s are retried with the backoff, not taken for "not found".
    @Test(arguments: [4_040_002, 4_040_004, 4_040_006])
    func retryableNotFound_isRetried_thenSucceeds(code: Int) throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.appleErrors = [(404, code), (404, code)] }
        let sleeps = Sleeps()
        let statuses = try SignedAnswers.client(fake, sleeps: sleeps).subscriptionStatuses(transactionId: "o1", servers: .productionThenSandbox)
        #expect(statuses.environment == .production)
        #expect(sleeps.recorded == [10, 20])
        #expect(fake.seen.map(\.target) == Array(repeating: "/production/inApps/v1/subscriptions/o1", count: 3))
    }

    /// A retryable 404 past the attempts is "unavailable", not "not found".
    @Test func retryableNotFound_pastTheAttempts_isUnavailable() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.appleErrors = Array(repeating: (404, 4_040_006), count: 3) }
        let client = try SignedAnswers.client(fake, configure: { $0.attempts = 3 })
        do throws(AppStoreError) {
            _ = try client.transactionInfo(transactionId: "t1", servers: .productionThenSandbox)
            Issue.record("answered")
        } catch {
            #expect(error == .unavailable(endpoint: "GET /inApps/v1/transactions/t1 (Production)", attempts: 3, last: "HTTP 404, error 4040006"))
            #expect(!error.isTransactionNotFound)
        }
        #expect(fake.seen.count == 3)
    }

    /// When sandbox data is not accepted, production's "not found" is the answer: the sandbox is not asked.
    @Test func productionThenSandbox_withoutTheSandboxAccepted_asksProductionOnly() throws {
        let fake = try Self.fake(environment: "Sandbox")
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake, environments: [.production])
        do throws(AppStoreError) {
            _ = try client.transactionHistory(transactionId: "o1", servers: .productionThenSandbox)
            Issue.record("answered")
        } catch {
            #expect(error.isTransactionNotFound, "\(error)")
        }
        #expect(fake.seen.map(\.target) == ["/production/inApps/v2/history/o1?sort=ASCENDING"])
    }

    /// A revision Apple already gave (not only the last one) is a loop: refused at once.
    @Test func transactionHistory_revisionAlreadyFollowed_isALoop() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { state in
            state.pageSize = 1
            state.rewoundTokens = ["3": "1"]
        }
        #expect(throws: AppStoreError.pagination(endpoint: "GET /inApps/v2/history/o1 (Production, page 3)", reason: "hasMore with a revision already followed (a loop)")) {
            try SignedAnswers.client(fake, configure: { $0.maxPages = 20 }).transactionHistory(transactionId: "o1", servers: .only(.production))
        }
        #expect(fake.seen.count == 3)
    }

    /// A pagination token already followed is a loop: refused at once.
    @Test func notificationHistory_tokenAlreadyFollowed_isALoop() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedAnswers.bundleId)
        defer { fake.stop() }
        let start = SignedAnswers.now - 10 * SignedAnswers.day
        let transaction = try SignedAnswers.transaction("n1", original: "n1", from: start, to: start + 30 * SignedAnswers.day)
        var sent: [(signedPayload: String, sent: Int64)] = []
        for index in 0..<5 {
            let uuid = "00000000-0000-0000-0000-00000000000\(index)"
            sent.append((try SignedAnswers.notification(uuid, transaction: transaction, signed: start + Int64(index)), start + Int64(index)))
        }
        fake.state.withLock { state in
            state.production.notifications = sent
            state.pageSize = 1
            state.rewoundTokens = ["page-3": "page-1"]
        }
        let client = try SignedAnswers.client(fake, configure: { $0.maxPages = 20 })
        #expect(throws: AppStoreError.pagination(
            endpoint: "POST /inApps/v1/notifications/history (Production, page 3)", reason: "hasMore with a paginationToken already followed (a loop)")
        ) { try client.notificationHistory(from: Instant(milliseconds: start), to: Instant(milliseconds: start + SignedAnswers.day)) }
        #expect(fake.seen.count == 3)
    }

    /// The pages of one call together may not pass `maxTotalBytes`, though each is small.
    @Test func transactionHistory_pastTheTotalByteCap_isRefused() throws {
        let fake = try Self.fake()
        let pageBytes = try fake.state.withLock { state in
            state.pageSize = 1
            return try #require(state.production.customers.first?.history.map(\.utf8.count).max()) + 150
        }
        defer { fake.stop() }
        let client = try SignedAnswers.client(fake, configure: { $0.maxTotalBytes = 3 * pageBytes })
        #expect(throws: AppStoreError.answerTooLarge(endpoint: "GET /inApps/v2/history/o1 (Production, page 4)", limit: 3 * pageBytes)) {
            try client.transactionHistory(transactionId: "o1", servers: .only(.production))
        }
        #expect(fake.seen.count == 4)
    }
}
