import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

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

// MARK: - Idempotent answers and redaction

extension StoreContractTests.LifecycleTests {
    /// An answer as a create renders it: the verification with its personal fields.
    private func answer(showing verification: Verification) -> [UInt8] {
        Array(#"{"object":"verification","id":"\#(verification.id.rawValue)","user_id":"\#(verification.userID)","mobile_last4":"\#(verification.mobile.suffix(4))","metadata":{"ref":"\#(verification.metadata["ref"] ?? "")"}}"#.utf8)
    }

    private func storedAnswers(_ db: any Database, _ account: ObjectID) throws -> Int64 {
        try db.query("SELECT count(*) AS n FROM idempotency_keys WHERE account_id = \(account.rawValue) AND body IS NOT NULL")[0].int("n")
    }

    /// A request claims its key and reads the verification; the verification is redacted; the
    /// request then completes. Its answer (user id, metadata, the mobile's last digits, as read
    /// before the redaction) is not stored: the key is freed, so a retry runs afresh instead of
    /// replaying erased personal data.
    @Test(arguments: Backend.allCases)
    func anAnswerClaimedBeforeARedactionAndCompletedAfterItIsNotStored(_ backend: Backend) throws {
        guard backend.isAvailable else { return }
        try withStore(backend) { db, store, _, account in
            let read = try create(store, account, user: "race-user-4c7e1b", mobile: "+919811122233", metadata: ["ref": "race-meta-9a0f3d"])
            let idempotency = IdempotencyStore(database: db)
            #expect(try idempotency.claim(accountID: account, key: "create-2", requestHash: "h", at: t0) == .claimed)
            let canceled = try change(store, read, .canceled, by: Self.actor)
            _ = try store.redact(accountID: account, id: canceled.id, at: t0, by: Self.actor)
            try idempotency.complete(accountID: account, key: "create-2", status: 200, contentType: "application/json",
                                     body: answer(showing: read))
            #expect(try storedAnswers(db, account) == 0)
            #expect(try idempotency.claim(accountID: account, key: "create-2", requestHash: "h", at: t0.addingTimeInterval(1)) == .claimed)
            // An answer about another, unredacted verification is stored and replayed as ever.
            let other = try create(store, account, user: "other-user")
            #expect(try idempotency.claim(accountID: account, key: "create-3", requestHash: "h", at: t0) == .claimed)
            try idempotency.complete(accountID: account, key: "create-3", status: 201, contentType: "application/json",
                                     body: answer(showing: other))
            #expect(try idempotency.claim(accountID: account, key: "create-3", requestHash: "h", at: t0.addingTimeInterval(1))
                    == .replay(status: 201, contentType: "application/json", body: answer(showing: other)))
        }
    }

    /// The same race with the redaction still in progress when the answer is completed: the
    /// store waits for the redaction to commit, then sees it, and stores nothing.
    @Test(arguments: Backend.allCases)
    func anAnswerCompletedDuringARedactionWaitsForItAndIsNotStored(_ backend: Backend) throws {
        guard backend.isAvailable else { return }
        try withStore(backend) { db, store, _, account in
            let read = try create(store, account, user: "race-user-2b9d0e", metadata: ["ref": "race-meta-5e7a21"])
            let canceled = try change(store, read, .canceled, by: Self.actor)
            let idempotency = IdempotencyStore(database: db)
            #expect(try idempotency.claim(accountID: account, key: "create-4", requestHash: "h", at: t0) == .claimed)
            let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let redacted = DispatchSemaphore(value: 0), completed = DispatchSemaphore(value: 0)
            let failures = Collected<String>()
            // A redaction that holds the verification's row (locked, not yet written or committed).
            Thread {
                do {
                    _ = try store.update(accountID: account, id: canceled.id, at: t0) { current, _ in
                        try current.apply(.redacted, at: t0, by: Self.actor)
                        holding.signal()
                        release.wait()
                    }
                } catch {
                    failures.append("redaction: \(error)")
                }
                redacted.signal()
            }.start()
            try #require(holding.wait(timeout: .now() + 10) == .success)
            Thread {
                do {
                    try idempotency.complete(accountID: account, key: "create-4", status: 200, contentType: "application/json",
                                             body: answer(showing: read))
                } catch {
                    failures.append("complete: \(error)")
                }
                completed.signal()
            }.start()
            // Let the completion reach the database while the redaction holds the row.
            Thread.sleep(forTimeInterval: 0.3)
            release.signal()
            #expect(redacted.wait(timeout: .now() + 10) == .success)
            #expect(completed.wait(timeout: .now() + 10) == .success)
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(try storedAnswers(db, account) == 0)
            #expect(try idempotency.claim(accountID: account, key: "create-4", requestHash: "h", at: t0.addingTimeInterval(1)) == .claimed)
        }
    }
}
