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
