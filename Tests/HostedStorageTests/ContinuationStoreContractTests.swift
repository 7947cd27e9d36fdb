import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Continuations below HTTP, on SQLite and PostgreSQL: one device opens a link, its one pick
/// decides, a wrong pick burns it, a new link replaces the open one, links expire.
@Suite struct ContinuationStoreContractTests {
    static let lifetime: TimeInterval = 600

    /// A migrated database, the store, a hand-moved clock and one stored verification.
    func withStore(_ backend: Backend, poolSize: Int = 4,
                   _ body: (any Database, ContinuationStore, ManualClock, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            let verification = try storeVerification(db, accountID: try makeAccount(db))
            try body(db, ContinuationStore(database: db), ManualClock(t0), verification)
        }
    }

    /// A new continuation of `verificationID` made now (replacing its open one); its id.
    @discardableResult
    func replace(_ db: any Database, _ store: ContinuationStore, _ clock: ManualClock, _ verificationID: ObjectID,
                 secret: String, number: String = "42") throws -> ObjectID {
        let id = ObjectID(.continuation, using: SecureRandom())
        try db.transaction { connection in
            try store.replace(id: id, verificationID: verificationID, secretHash: secret, number: number, at: clock.now(),
                              expiresAt: clock.now().addingTimeInterval(Self.lifetime), on: connection)
        }
        return id
    }

    /// The pick of the device holding `claim`, on its own transaction.
    func pick(_ db: any Database, _ store: ContinuationStore, _ clock: ManualClock, _ verificationID: ObjectID,
              claim: String, number: String) throws -> Bool? {
        try db.transaction { connection in
            try store.pick(claimHash: claim, verificationID: verificationID, number: number, at: clock.now(), on: connection)
        }
    }

    @Test(arguments: Backend.allCases)
    func aLinkOpensOnceForOneDevice(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            #expect(try store.current(verificationID: verification) == nil)
            let id = try replace(db, store, clock, verification, secret: "secret-1", number: "37")
            let current = try #require(try store.current(verificationID: verification))
            #expect(current.id == id.rawValue && current.status == "pending")
            #expect(current.expiresAt == t0.addingTimeInterval(Self.lifetime))
            #expect(try store.isPending(secretHash: "secret-1", verificationID: verification, at: clock.now()))
            let opened = try #require(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1",
                                                     at: clock.now()))
            #expect(opened.id == id.rawValue && opened.number == "37")
            #expect(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-2", at: clock.now()) == nil)
            #expect(try !store.isPending(secretHash: "secret-1", verificationID: verification, at: clock.now()))
            #expect(try store.current(verificationID: verification)?.status == "opened")
        }
    }

    @Test(arguments: Backend.allCases)
    func aLinkBelongsToItsVerification(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            let other = try storeVerification(db, accountID: try makeAccount(db, name: "Other"))
            try replace(db, store, clock, verification, secret: "secret-1")
            #expect(try !store.isPending(secretHash: "secret-1", verificationID: other, at: clock.now()))
            #expect(try store.open(secretHash: "secret-1", verificationID: other, claimHash: "claim-1", at: clock.now()) == nil)
            #expect(try store.current(verificationID: other) == nil)
            // Still the first verification's to open.
            #expect(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now()) != nil)
            #expect(try pick(db, store, clock, other, claim: "claim-1", number: "42") == nil)
            #expect(try store.current(verificationID: verification)?.status == "opened")
        }
    }

    @Test(arguments: Backend.allCases)
    func theRightPickMatchesOnce(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1", number: "42")
            _ = try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now())
            #expect(try pick(db, store, clock, verification, claim: "claim-other", number: "42") == nil)
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == true)
            #expect(try store.current(verificationID: verification)?.status == "matched")
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == nil)
            // A matched one (a phone signed in) is not revoked by "continue here instead".
            #expect(try store.revokeOpen(verificationID: verification, at: clock.now()) == 0)
            #expect(try store.current(verificationID: verification)?.status == "matched")
        }
    }

    @Test(arguments: Backend.allCases)
    func aWrongPickBurnsTheLink(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1", number: "42")
            _ = try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now())
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "17") == false)
            #expect(try store.current(verificationID: verification)?.status == "failed")
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == nil)
            #expect(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-2", at: clock.now()) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aPickIsUndoneWithItsTransaction(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1", number: "42")
            _ = try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now())
            struct EventFailed: Error {}
            #expect(throws: EventFailed.self) {
                try db.transaction { connection in
                    _ = try store.pick(claimHash: "claim-1", verificationID: verification, number: "17", at: clock.now(), on: connection)
                    throw EventFailed()
                }
            }
            #expect(try store.current(verificationID: verification)?.status == "opened")
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == true)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNewLinkReplacesTheOpenOne(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1")
            _ = try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now())
            clock.advance(by: 1)
            let second = try replace(db, store, clock, verification, secret: "secret-2", number: "08")
            #expect(try store.current(verificationID: verification)?.id == second.rawValue)
            // The opened first link is revoked: its claim picks nothing.
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == nil)
            #expect(try store.isPending(secretHash: "secret-2", verificationID: verification, at: clock.now()))
            // "Continue here instead" ends the pending second one too.
            #expect(try store.revokeOpen(verificationID: verification, at: clock.now()) == 1)
            #expect(try store.current(verificationID: verification)?.status == "revoked")
            #expect(try store.open(secretHash: "secret-2", verificationID: verification, claimHash: "claim-2", at: clock.now()) == nil)
            #expect(try store.revokeOpen(verificationID: verification, at: clock.now()) == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func anOpenedLinkCannotBePickedOnceItExpires(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1", number: "42")
            clock.advance(by: Self.lifetime - 1)
            #expect(try store.isPending(secretHash: "secret-1", verificationID: verification, at: clock.now()))
            #expect(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now()) != nil)
            clock.advance(by: 1)
            #expect(try pick(db, store, clock, verification, claim: "claim-1", number: "42") == nil)
            #expect(try store.current(verificationID: verification)?.status == "opened")
        }
    }

    @Test(arguments: Backend.allCases)
    func anExpiredLinkDoesNotOpen(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1")
            clock.advance(by: Self.lifetime)
            #expect(try !store.isPending(secretHash: "secret-1", verificationID: verification, at: clock.now()))
            #expect(try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-1", at: clock.now()) == nil)
            #expect(try store.current(verificationID: verification)?.status == "pending")
        }
    }

    @Test(arguments: Backend.allCases)
    func ofThirtyParallelOpensExactlyOneGetsTheNumber(_ backend: Backend) throws {
        try withStore(backend, poolSize: 8) { db, store, clock, verification in
            try replace(db, store, clock, verification, secret: "secret-1", number: "42")
            let winners = Collected<String>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 30) { index in
                do {
                    if let opened = try store.open(secretHash: "secret-1", verificationID: verification, claimHash: "claim-\(index)",
                                                   at: clock.now()) {
                        winners.append("claim-\(index) \(opened.number)")
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            let winner = try #require(winners.all.count == 1 ? winners.all.first : nil, "\(winners.all)")
            #expect(winner.hasSuffix(" 42"))
            // Only the winner's claim can pick.
            let claim = String(winner.prefix { $0 != " " })
            #expect(try pick(db, store, clock, verification, claim: claim == "claim-0" ? "claim-1" : "claim-0", number: "42") == nil)
            #expect(try pick(db, store, clock, verification, claim: claim, number: "42") == true)
        }
    }

    @Test(arguments: Backend.allCases)
    func theLinksMessageIsQueued(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try store.queueMessage(id: ObjectID(.message, using: SecureRandom()), verificationID: verification, sealed: [1, 2, 3],
                                   at: clock.now())
            let queued = try SMSQueueStore(database: db).claim(at: clock.now(), lease: 60, limit: 10)
            #expect(queued.count == 1)
            #expect(queued.first?.sealed == [1, 2, 3])
        }
    }
}
