import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

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

        /// A lease takes several requests at once: all of them fit or none is taken.
        @Test(arguments: Backend.allCases)
        func takingSeveralAtOnceCountsThemAll_orTakesNothing(_ backend: Backend) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = RateLimitStore(database: db, table: .pollLimits)
                #expect(try store.take(bucket: "b", at: t0, interval: 1, burst: 10, cost: 6).allowed)
                // Four remain: five do not fit, and the refusal takes nothing.
                #expect(try !store.take(bucket: "b", at: t0, interval: 1, burst: 10, cost: 5).allowed)
                for _ in 0..<4 { #expect(try store.take(bucket: "b", at: t0, interval: 1, burst: 10).allowed) }
                let refused = try store.take(bucket: "b", at: t0, interval: 1, burst: 10)
                #expect(!refused.allowed)
                #expect(refused.retryAfterSeconds == 1)
                #expect(try store.take(bucket: "b", at: t0.addingTimeInterval(1), interval: 1, burst: 10).allowed)
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
