import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// The rules the app relies on, proved below HTTP against each store on SQLite and PostgreSQL
// alike. Every time is given (`at:`), counted from one fixed instant, so nothing depends on the
// clock of the machine running the tests.

/// The fixed instant the contract tests count from.
private let t0 = Date(unixMilliseconds: 1_795_000_000_000)

/// Values collected from many threads at once.
private final class Collected<Value: Sendable>: @unchecked Sendable {  // `values` only under `lock`
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// A migrated, empty database of `backend`.
private func withMigratedDatabase(_ backend: Backend, poolSize: Int = 4, _ body: (any Database) throws -> Void) throws {
    try TestDatabase.with(backend, poolSize: poolSize) { (db: any Database) throws in
        try Migrator(dialect: db.dialect).migrate(db)
        try body(db)
    }
}

/// Stores an account (with one API key, as the API creates them) and returns its id.
private func makeAccount(_ db: any Database, name: String = "Acme") throws -> ObjectID {
    let random = SecureRandom()
    let account = Account(id: ObjectID(.account, using: random), name: name, createdAt: t0)
    let secret = APIKeySecret(using: random)
    let key = APIKey(id: ObjectID(.apiKey, using: random), accountID: account.id, displayPrefix: secret.displayPrefix,
                     createdAt: t0, revokedAt: nil)
    try AccountStore(database: db).create(account, firstKey: key, secretHash: Digest.sha256Hex(secret.value))
    return account.id
}

/// A verification of `accountID`, as the API creates them.
private func makeVerification(accountID: ObjectID, userID: String = "user-1", workflowKey: String = "kyc",
                              status: VerificationStatus = .created, createdAt: Date = t0) -> Verification {
    Verification(id: ObjectID(.verification, using: SecureRandom()), accountID: accountID, userID: userID,
                 workflowKey: workflowKey, workflowVersion: 1, status: status, mobile: "+919876543210", returnURL: nil,
                 metadata: [:], steps: [], createdAt: createdAt, updatedAt: createdAt)
}

/// The suites below, under one name (`--filter StoreContract`).
@Suite enum StoreContractTests {}

// MARK: - IdempotencyStore

extension StoreContractTests {
    /// `Idempotency-Key`: one request owns a key, its answer is replayed, a different request with
    /// the key is refused, and keys are forgotten after 24 hours.
    @Suite struct IdempotencyStoreTests {
        let account = ObjectID(.account, using: SecureRandom())
        let ok = (status: 201, contentType: "application/json", body: Array(#"{"id":"ver_x"}"#.utf8))

        @Test(arguments: Backend.allCases)
        func theFirstClaimOwnsTheKeyAndTheSameRequestWaitsWhileItRuns(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(1)) == .inFlight)
            }
        }

        @Test(arguments: Backend.allCases)
        func aCompletedRequestIsReplayedWithItsStatusContentTypeAndBody(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                try store.complete(accountID: account, key: "k1", status: ok.status, contentType: ok.contentType, body: ok.body)
                let replay = IdempotencyStore.Claim.replay(status: ok.status, contentType: ok.contentType, body: ok.body)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(5)) == replay)
                // And again: a replay does not use the stored answer up.
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(6)) == replay)
            }
        }

        @Test(arguments: Backend.allCases)
        func theSameKeyWithADifferentRequestIsAMismatchWhileRunningAndAfterwards(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h2", at: t0.addingTimeInterval(1)) == .mismatch)
                try store.complete(accountID: account, key: "k1", status: ok.status, contentType: ok.contentType, body: ok.body)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h2", at: t0.addingTimeInterval(2)) == .mismatch)
            }
        }

        @Test(arguments: Backend.allCases)
        func aReleasedKeyIsClaimedAfresh(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                try store.release(accountID: account, key: "k1")
                // A corrected retry (another body) with the same key is processed as new.
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h2", at: t0.addingTimeInterval(1)) == .claimed)
            }
        }

        @Test(arguments: Backend.allCases)
        func aKeyIsRememberedFor24HoursThenClaimedAfresh(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                try store.complete(accountID: account, key: "k1", status: ok.status, contentType: ok.contentType, body: ok.body)
                let almostADay = t0.addingTimeInterval(IdempotencyStore.retention - 1)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h2", at: almostADay) == .mismatch)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: almostADay)
                        == .replay(status: ok.status, contentType: ok.contentType, body: ok.body))
                let overADay = t0.addingTimeInterval(IdempotencyStore.retention + 1)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h2", at: overADay) == .claimed)
            }
        }

        @Test(arguments: Backend.allCases)
        func anUnfinishedClaimOlderThan60SecondsIsGivenUp(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                #expect(IdempotencyStore.abandonedAfter == 60)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(59)) == .inFlight)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(61)) == .claimed)
                // A finished one is not given up after a minute: it is replayed.
                try store.complete(accountID: account, key: "k1", status: ok.status, contentType: ok.contentType, body: ok.body)
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(61 + 120))
                        == .replay(status: ok.status, contentType: ok.contentType, body: ok.body))
            }
        }

        @Test(arguments: Backend.allCases)
        func keysArePerAccount(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                let other = ObjectID(.account, using: SecureRandom())
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0) == .claimed)
                #expect(try store.claim(accountID: other, key: "k1", requestHash: "h2", at: t0) == .claimed)
                try store.complete(accountID: account, key: "k1", status: ok.status, contentType: ok.contentType, body: ok.body)
                #expect(try store.claim(accountID: other, key: "k1", requestHash: "h2", at: t0.addingTimeInterval(1)) == .inFlight)
                try store.release(accountID: other, key: "k1")
                #expect(try store.claim(accountID: account, key: "k1", requestHash: "h1", at: t0.addingTimeInterval(2))
                        == .replay(status: ok.status, contentType: ok.contentType, body: ok.body))
            }
        }

        @Test(arguments: Backend.allCases)
        func parallelClaimsOfOneKeyFromManyThreadsLetExactlyOneThrough(_ backend: Backend) throws {
            try withMigratedDatabase(backend, poolSize: 8) { (db: any Database) throws in
                let store = IdempotencyStore(database: db)
                let claims = Collected<IdempotencyStore.Claim>()
                let failures = Counter()
                DispatchQueue.concurrentPerform(iterations: 24) { _ in
                    do {
                        claims.append(try store.claim(accountID: account, key: "race", requestHash: "h1", at: t0))
                    } catch {
                        failures.increment()
                    }
                }
                #expect(failures.value == 0)
                #expect(claims.all.filter { $0 == .claimed }.count == 1)
                #expect(claims.all.filter { $0 == .inFlight }.count == 24 - 1 - failures.value)
            }
        }
    }
}

// MARK: - RateLimitStore

extension StoreContractTests {
    /// Rate limits: `burst` requests at once, then one per `interval`, across threads and processes.
    @Suite struct RateLimitStoreTests {
        @Test(arguments: Backend.allCases)
        func aBurstIsAllowedAtOnceThenRefusedWithAPositiveRetryAfter(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = RateLimitStore(database: db)
                for _ in 0..<3 {
                    let decision = try store.take(bucket: "b", at: t0, interval: 10, burst: 3)
                    #expect(decision.allowed)
                    #expect(decision.retryAfterSeconds == 0)
                }
                let refused = try store.take(bucket: "b", at: t0, interval: 10, burst: 3)
                #expect(!refused.allowed)
                #expect(refused.retryAfterSeconds > 0)
                #expect(refused.retryAfterSeconds <= 10)
                // A refusal costs nothing: waiting as long as it says is enough.
                #expect(try store.take(bucket: "b", at: t0.addingTimeInterval(TimeInterval(refused.retryAfterSeconds)),
                                       interval: 10, burst: 3).allowed)
            }
        }

        @Test(arguments: Backend.allCases)
        func requestsAreAllowedAgainAfterTheInterval(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = RateLimitStore(database: db)
                for _ in 0..<2 { #expect(try store.take(bucket: "b", at: t0, interval: 10, burst: 2).allowed) }
                #expect(try !store.take(bucket: "b", at: t0.addingTimeInterval(5), interval: 10, burst: 2).allowed)
                // One interval on: one more request.
                #expect(try store.take(bucket: "b", at: t0.addingTimeInterval(10), interval: 10, burst: 2).allowed)
                #expect(try !store.take(bucket: "b", at: t0.addingTimeInterval(10), interval: 10, burst: 2).allowed)
                // A quiet bucket refills to the whole burst, and no further.
                let later = t0.addingTimeInterval(1000)
                for _ in 0..<2 { #expect(try store.take(bucket: "b", at: later, interval: 10, burst: 2).allowed) }
                #expect(try !store.take(bucket: "b", at: later, interval: 10, burst: 2).allowed)
            }
        }

        @Test(arguments: Backend.allCases)
        func bucketsAreIndependent(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = RateLimitStore(database: db)
                #expect(try store.take(bucket: "a", at: t0, interval: 60, burst: 1).allowed)
                #expect(try !store.take(bucket: "a", at: t0, interval: 60, burst: 1).allowed)
                #expect(try store.take(bucket: "b", at: t0, interval: 60, burst: 1).allowed)
            }
        }

        @Test(arguments: Backend.allCases)
        func parallelTakesOnOneBucketNeverAllowMoreThanTheBurst(_ backend: Backend) throws {
            try withMigratedDatabase(backend, poolSize: 8) { (db: any Database) throws in
                let store = RateLimitStore(database: db)
                let allowed = Counter()
                let refused = Counter()
                let failures = Counter()
                DispatchQueue.concurrentPerform(iterations: 40) { _ in
                    do {
                        if try store.take(bucket: "hot", at: t0, interval: 3600, burst: 5).allowed {
                            allowed.increment()
                        } else {
                            refused.increment()
                        }
                    } catch {
                        failures.increment()
                    }
                }
                #expect(failures.value == 0)
                #expect(allowed.value == 5)
                #expect(refused.value == 35)
            }
        }

        @Test(arguments: Backend.allCases)
        func pruneDeletesOnlyBucketsWhoseTimeHasPassed(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = RateLimitStore(database: db)
                #expect(try store.count() == 0)
                #expect(try store.take(bucket: "short", at: t0, interval: 1, burst: 1).allowed)    // full again at t0 + 1 s
                #expect(try store.take(bucket: "long", at: t0, interval: 100, burst: 1).allowed)   // full again at t0 + 100 s
                #expect(try store.count() == 2)
                #expect(try store.prune(before: t0) == 0)
                #expect(try store.count() == 2)
                #expect(try store.prune(before: t0.addingTimeInterval(2)) == 1)
                #expect(try store.count() == 1)
                // The kept bucket still limits; the pruned one allows a full burst, as a new one does.
                #expect(try !store.take(bucket: "long", at: t0.addingTimeInterval(2), interval: 100, burst: 1).allowed)
                #expect(try store.take(bucket: "short", at: t0.addingTimeInterval(2), interval: 1, burst: 1).allowed)
                #expect(try store.prune(before: t0.addingTimeInterval(200)) == 2)
                #expect(try store.count() == 0)
            }
        }
    }
}

// MARK: - SignInStore codes

extension StoreContractTests {
    /// SMS codes: a code works once, within 5 tries counted atomically, until it expires or a new
    /// code replaces it.
    @Suite struct SignInStoreCodeTests {
        static let maximumAttempts = 5
        let right = "hmac-right"

        /// A migrated database holding one verification (codes belong to a verification).
        func withVerification(_ backend: Backend, poolSize: Int = 4,
                              _ body: (any Database, SignInStore, ObjectID) throws -> Void) throws {
            try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
                let account = try makeAccount(db)
                let (verification, created) = try VerificationStore(database: db, changes: LocalChangeFeed())
                    .createOrFetchOpen(makeVerification(accountID: account))
                try #require(created)
                try body(db, SignInStore(database: db), verification.id)
            }
        }

        func replace(_ store: SignInStore, _ id: ObjectID, hmac: String, at time: Date = t0, lifetime: TimeInterval = 300) throws {
            try store.replaceCode(verificationID: id, codeHMAC: hmac, at: time, expiresAt: time.addingTimeInterval(lifetime),
                                  message: (id: ObjectID(.message, using: SecureRandom()), sealed: [0x01, 0x02, 0x03]))
        }

        func check(_ store: SignInStore, _ id: ObjectID, _ hmac: String, at time: Date = t0.addingTimeInterval(10)) throws -> SignInStore.CodeCheck {
            try store.checkCode(verificationID: id, codeHMAC: hmac, maximumAttempts: Self.maximumAttempts, at: time)
        }

        @Test(arguments: Backend.allCases)
        func theRightCodeIsAcceptedOnce(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                #expect(try check(store, id, right) == .accepted)
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func wrongCodesAreRejectedAndCounted(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                for _ in 0..<(Self.maximumAttempts - 1) { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                // The last of the allowed tries.
                #expect(try check(store, id, right) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func afterFiveWrongTriesEvenTheRightCodeIsRejected(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                for _ in 0..<Self.maximumAttempts { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func twentyParallelWrongChecksLeaveTheTriesCappedAndTheRightCodeFails(_ backend: Backend) throws {
            try withVerification(backend, poolSize: 8) { db, store, id in
                try replace(store, id, hmac: right)
                let results = Collected<SignInStore.CodeCheck>()
                let failures = Counter()
                DispatchQueue.concurrentPerform(iterations: 20) { index in
                    do {
                        results.append(try check(store, id, "hmac-wrong-\(index)"))
                    } catch {
                        failures.increment()
                    }
                }
                #expect(failures.value == 0)
                #expect(results.all.count == 20)
                #expect(results.all.allSatisfy { $0 == .rejected })
                let attempts = try db.query("SELECT attempts FROM otp_codes WHERE verification_id = $1", .text(id.rawValue))
                #expect(try attempts.first?.int("attempts") == Int64(Self.maximumAttempts))
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func anExpiredCodeIsRejected(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right, at: t0, lifetime: 300)
                #expect(try check(store, id, right, at: t0.addingTimeInterval(301)) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func aNewCodeReplacesTheOldOne(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: "hmac-old")
                try replace(store, id, hmac: right, at: t0.addingTimeInterval(5))
                #expect(try check(store, id, "hmac-old") == .rejected)
                #expect(try check(store, id, right) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func aNewCodeStartsWithFreshTriesAndItsOwnExpiry(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: "hmac-old", at: t0, lifetime: 300)
                for _ in 0..<Self.maximumAttempts { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                try replace(store, id, hmac: right, at: t0.addingTimeInterval(200), lifetime: 300)
                // Past the old code's expiry, within the new one's.
                #expect(try check(store, id, right, at: t0.addingTimeInterval(400)) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func everyCodeQueuesItsMessageInTheSameTransaction(_ backend: Backend) throws {
            try withVerification(backend) { db, store, id in
                try replace(store, id, hmac: "hmac-1")
                try replace(store, id, hmac: "hmac-2")
                #expect(try SMSQueueStore(database: db).count() == 2)
                // A message id used twice fails the whole replacement: the code stays what it was.
                let message = ObjectID(.message, using: SecureRandom())
                try store.replaceCode(verificationID: id, codeHMAC: "hmac-3", at: t0, expiresAt: t0.addingTimeInterval(300),
                                      message: (id: message, sealed: [0x01]))
                #expect(throws: DatabaseError.self) {
                    try store.replaceCode(verificationID: id, codeHMAC: "hmac-4", at: t0, expiresAt: t0.addingTimeInterval(300),
                                          message: (id: message, sealed: [0x02]))
                }
                #expect(try SMSQueueStore(database: db).count() == 3)
                #expect(try check(store, id, "hmac-4") == .rejected)
                #expect(try check(store, id, "hmac-3") == .accepted)
            }
        }
    }
}

// MARK: - VerificationStore listing

extension StoreContractTests {
    /// `GET /v1/verifications` below HTTP: newest first, filtered, paged by cursor, one account only.
    @Suite struct VerificationStoreListingTests {
        /// Two accounts' verifications, some created in the same millisecond (the cursor must still
        /// visit each once); `mine` newest first, as the listing must return them.
        struct Fixture {
            let store: VerificationStore
            let account: ObjectID
            let other: ObjectID
            let mine: [Verification]
            let theirs: [Verification]
        }

        func withFixture(_ backend: Backend, _ body: (Fixture) throws -> Void) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = VerificationStore(database: db, changes: LocalChangeFeed())
                let account = try makeAccount(db, name: "Mine")
                let other = try makeAccount(db, name: "Theirs")
                func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
                let mine = [
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .created, createdAt: at(0)),
                    makeVerification(accountID: account, userID: "u2", workflowKey: "kyc", status: .inProgress, createdAt: at(1)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "address", status: .submitted, createdAt: at(2)),
                    makeVerification(accountID: account, userID: "u3", workflowKey: "kyc", status: .approved, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .canceled, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u2", workflowKey: "address", status: .rejected, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u4", workflowKey: "kyc", status: .expired, createdAt: at(5)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .expired, createdAt: at(6)),
                    makeVerification(accountID: account, userID: "u1%", workflowKey: "kyc", status: .created, createdAt: at(7)),
                ]
                let theirs = [
                    makeVerification(accountID: other, userID: "u1", workflowKey: "kyc", status: .created, createdAt: at(3)),
                    makeVerification(accountID: other, userID: "u9", workflowKey: "address", status: .expired, createdAt: at(4)),
                    makeVerification(accountID: other, userID: "u1", workflowKey: "address", status: .submitted, createdAt: at(8)),
                ]
                for verification in mine + theirs {
                    let (_, created) = try store.createOrFetchOpen(verification)
                    try #require(created)
                }
                try body(Fixture(store: store, account: account, other: other, mine: Self.newestFirst(mine), theirs: theirs))
            }
        }

        /// Newest first; within one millisecond, by id descending (the listing's total order).
        static func newestFirst(_ verifications: [Verification]) -> [Verification] {
            verifications.sorted {
                ($0.createdAt, $0.id.rawValue) > ($1.createdAt, $1.id.rawValue)
            }
        }

        /// Every page of a listing, following `startingAfter`; fails the test after too many pages.
        func allPages(_ fixture: Fixture, filter: VerificationStore.Filter = .init(), limit: Int) throws -> [[Verification]] {
            var pages: [[Verification]] = []
            var cursor: ObjectID?
            while pages.count <= fixture.mine.count + 1 {
                let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: filter, limit: limit, startingAfter: cursor)
                pages.append(page)
                guard hasMore else { return pages }
                guard let last = page.last else {
                    Issue.record("has_more with an empty page")
                    return pages
                }
                cursor = last.id
            }
            Issue.record("paging did not end")
            return pages
        }

        @Test(arguments: Backend.allCases)
        func theListIsNewestFirstAndHoldsNoRowOfAnotherAccount(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 100, startingAfter: nil)
                #expect(page.map(\.id) == fixture.mine.map(\.id))
                #expect(page == fixture.mine)
                #expect(!hasMore)
                #expect(page.allSatisfy { $0.accountID == fixture.account })
                let theirs = try fixture.store.list(accountID: fixture.other, filter: .init(), limit: 100, startingAfter: nil).0
                #expect(theirs.map(\.id) == Self.newestFirst(fixture.theirs).map(\.id))
            }
        }

        @Test(arguments: Backend.allCases)
        func theUserFilterMatchesTheWholeIDExactly(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                func list(_ userID: String) throws -> [ObjectID] {
                    try fixture.store.list(accountID: fixture.account, filter: .init(userID: userID), limit: 100, startingAfter: nil).0.map(\.id)
                }
                #expect(try list("u1") == fixture.mine.filter { $0.userID == "u1" }.map(\.id))
                #expect(try list("u1").count == 4)
                #expect(try list("u1%") == fixture.mine.filter { $0.userID == "u1%" }.map(\.id))
                #expect(try list("u").isEmpty)
                #expect(try list("U1").isEmpty)
                #expect(try list("u%").isEmpty)
                #expect(try list("u9").isEmpty)  // another account's user
            }
        }

        @Test(arguments: Backend.allCases)
        func theWorkflowAndStatusFiltersAloneAndTogether(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                func list(_ filter: VerificationStore.Filter) throws -> [ObjectID] {
                    try fixture.store.list(accountID: fixture.account, filter: filter, limit: 100, startingAfter: nil).0.map(\.id)
                }
                #expect(try list(.init(workflowKey: "address")) == fixture.mine.filter { $0.workflowKey == "address" }.map(\.id))
                #expect(try list(.init(workflowKey: "address")).count == 2)
                #expect(try list(.init(workflowKey: "kyc2")).isEmpty)
                for status in VerificationStatus.allCases {
                    #expect(try list(.init(status: status)) == fixture.mine.filter { $0.status == status }.map(\.id))
                }
                #expect(try list(.init(status: .expired)).count == 2)
                let together = VerificationStore.Filter(userID: "u1", workflowKey: "kyc", status: .expired)
                #expect(try list(together) == fixture.mine.filter { $0.userID == "u1" && $0.workflowKey == "kyc" && $0.status == .expired }.map(\.id))
                #expect(try list(together).count == 1)
            }
        }

        @Test(arguments: Backend.allCases)
        func aLimitCutsThePageAndSaysWhetherMoreFollow(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let count = fixture.mine.count
                for limit in [1, 3, count - 1, count, count + 1] {
                    let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: limit, startingAfter: nil)
                    #expect(page.map(\.id) == fixture.mine.prefix(limit).map(\.id), "limit \(limit)")
                    #expect(hasMore == (limit < count), "limit \(limit)")
                }
            }
        }

        @Test(arguments: Backend.allCases)
        func pagingWithStartingAfterVisitsEveryRowExactlyOnce(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                for limit in 1...(fixture.mine.count + 1) {
                    let pages = try allPages(fixture, limit: limit)
                    #expect(pages.flatMap { $0 }.map(\.id) == fixture.mine.map(\.id), "limit \(limit)")
                    #expect(pages.dropLast().allSatisfy { $0.count == limit }, "limit \(limit)")
                    #expect(pages.count == (fixture.mine.count + limit - 1) / limit, "limit \(limit)")
                }
            }
        }

        @Test(arguments: Backend.allCases)
        func pagingAFilteredListVisitsEveryMatchingRowExactlyOnce(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let filter = VerificationStore.Filter(userID: "u1")
                let pages = try allPages(fixture, filter: filter, limit: 1)
                #expect(pages.flatMap { $0 }.map(\.id) == fixture.mine.filter { $0.userID == "u1" }.map(\.id))
                let kyc = try allPages(fixture, filter: .init(workflowKey: "kyc"), limit: 2)
                #expect(kyc.flatMap { $0 }.map(\.id) == fixture.mine.filter { $0.workflowKey == "kyc" }.map(\.id))
            }
        }

        @Test(arguments: Backend.allCases)
        func startingAfterAVerificationOfAnotherAccountIsRefused(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let foreign = try #require(fixture.theirs.first)
                #expect(throws: VerificationStore.UnknownCursor.self) {
                    _ = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 10, startingAfter: foreign.id)
                }
                let unknown = ObjectID(.verification, using: SecureRandom())
                #expect(throws: VerificationStore.UnknownCursor.self) {
                    _ = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 10, startingAfter: unknown)
                }
            }
        }
    }
}
