import Dispatch
import Foundation
import HostedCore
import HostedStorage
import HostedTestSupport
import Testing

/// Workflows below HTTP, on SQLite and PostgreSQL: versions numbered per account and key from 1,
/// every version kept as written (steps, lifecycle, review), the latest found by key, each
/// account's own.
@Suite struct WorkflowStoreContractTests {
    static let steps = [WorkflowStep(id: "profile", type: .profile), WorkflowStep(id: "shop", type: .premisesPhotos, min: 2, max: 4),
                        WorkflowStep(id: "digilocker", type: .digilocker, documents: ["aadhaar", "pan"])]

    /// A migrated database, the store, a hand-moved clock and an account.
    func withStore(_ backend: Backend, poolSize: Int = 4,
                   _ body: (any Database, WorkflowStore, ManualClock, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            try body(db, WorkflowStore(database: db), ManualClock(t0), try makeAccount(db))
        }
    }

    @Test(arguments: Backend.allCases)
    func aKeysVersionsCountFromOne_andTheLatestIsFound(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let first = try store.createVersion(accountID: account, key: "kyc", name: "KYC", steps: Self.steps, at: clock.now())
            clock.advance(by: 1)
            let second = try store.createVersion(accountID: account, key: "kyc", name: "KYC v2", steps: [Self.steps[0]], at: clock.now())
            #expect(first.version == 1 && second.version == 2)
            #expect(try store.workflow(accountID: account, key: "kyc") == second)
            #expect(try store.workflow(accountID: account, key: "kyc", version: 1) == first)
            #expect(try store.workflow(accountID: account, key: "kyc", version: 2) == second)
            #expect(try store.workflow(accountID: account, key: "kyc", version: 3) == nil)
            #expect(try store.workflow(accountID: account, key: "unknown") == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aVersionIsReadBackAsWritten(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let lifecycle = WorkflowLifecycle(expiresAfterSeconds: 7200, redactAfterSeconds: 86_400 * 30)
            let written = try store.createVersion(accountID: account, key: "full", name: "Full", steps: Self.steps,
                                                  lifecycle: lifecycle, review: WorkflowReview(approvalsRequired: 2), at: clock.now())
            let read = try #require(try store.workflow(accountID: account, key: "full"))
            #expect(read == written)
            #expect(read.steps == Self.steps && read.name == "Full" && read.createdAt == t0)
            #expect(read.lifecycle == lifecycle && read.review.approvalsRequired == 2)
            // The defaults when none are given: seven days to expire, kept until redacted, one approval.
            let plain = try store.createVersion(accountID: account, key: "plain", name: "Plain", steps: [Self.steps[0]], at: clock.now())
            let readPlain = try #require(try store.workflow(accountID: account, key: "plain"))
            #expect(readPlain == plain)
            #expect(readPlain.lifecycle == WorkflowLifecycle(expiresAfterSeconds: 604_800, redactAfterSeconds: nil))
            #expect(readPlain.review.approvalsRequired == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func eachAccountHasItsOwnKeysAndVersions(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account throws in
            let other = try makeAccount(db, name: "Other")
            _ = try store.createVersion(accountID: account, key: "kyc", name: "Mine", steps: Self.steps, at: clock.now())
            _ = try store.createVersion(accountID: account, key: "kyc", name: "Mine v2", steps: Self.steps, at: clock.now())
            #expect(try store.workflow(accountID: other, key: "kyc") == nil)
            let theirs = try store.createVersion(accountID: other, key: "kyc", name: "Theirs", steps: Self.steps, at: clock.now())
            #expect(theirs.version == 1 && theirs.accountID == other)
            #expect(try store.workflow(accountID: other, key: "kyc")?.name == "Theirs")
            #expect(try store.workflow(accountID: account, key: "kyc")?.name == "Mine v2")
            #expect(try store.latestWorkflows(accountID: other).map(\.name) == ["Theirs"])
        }
    }

    @Test(arguments: Backend.allCases)
    func theLatestOfEveryKey_byKey(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            #expect(try store.latestWorkflows(accountID: account).isEmpty)
            for (key, name) in [("kyc", "KYC 1"), ("basic", "Basic 1"), ("kyc", "KYC 2"), ("zeta", "Zeta 1"), ("kyc", "KYC 3")] {
                clock.advance(by: 1)
                _ = try store.createVersion(accountID: account, key: key, name: name, steps: Self.steps, at: clock.now())
            }
            let latest = try store.latestWorkflows(accountID: account)
            #expect(latest.map(\.key) == ["basic", "kyc", "zeta"])
            #expect(latest.map(\.name) == ["Basic 1", "KYC 3", "Zeta 1"])
            #expect(latest.map(\.version) == [1, 3, 1])
        }
    }

    /// Four posts of one key at once (a pool's worth) get versions 1 to 4: the loser of a race
    /// for a number takes the next one.
    @Test(arguments: Backend.allCases)
    func parallelVersionsOfOneKeyGetDistinctNumbers(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let versions = Collected<Int>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                do {
                    versions.append(try store.createVersion(accountID: account, key: "kyc", name: "KYC \(index)", steps: Self.steps,
                                                            at: clock.now()).version)
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(versions.all.sorted() == [1, 2, 3, 4])
            #expect(try store.workflow(accountID: account, key: "kyc")?.version == 4)
        }
    }
}
