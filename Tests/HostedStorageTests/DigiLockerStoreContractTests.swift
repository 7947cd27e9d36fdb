import Dispatch
import Foundation
import HostedCore
import HostedStorage
import HostedTestSupport
import Testing

/// DigiLocker round-trip states and the dev simulator's codes and tokens below HTTP, on SQLite
/// and PostgreSQL: each is used once, only before it expires, a state only with its nonce.
@Suite struct DigiLockerStoreContractTests {
    static let lifetime: TimeInterval = 600

    /// A migrated database, the store, a hand-moved clock and one stored verification.
    func withStore(_ backend: Backend, poolSize: Int = 4,
                   _ body: (any Database, DigiLockerStore, ManualClock, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            let verification = try storeVerification(db, accountID: try makeAccount(db))
            try body(db, DigiLockerStore(database: db), ManualClock(t0), verification)
        }
    }

    func insertState(_ store: DigiLockerStore, _ clock: ManualClock, _ verificationID: ObjectID, state: String = "state-1",
                     nonce: String = "nonce-1", language: String? = "hi") throws {
        try store.insertState(stateHash: state, verificationID: verificationID, stepID: "digilocker", nonceHash: nonce,
                              language: language, at: clock.now(), expiresAt: clock.now().addingTimeInterval(Self.lifetime))
    }

    // MARK: Round-trip states

    @Test(arguments: Backend.allCases)
    func aStateLeadsBackOnce(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, verification in
            try insertState(store, clock, verification)
            let target = try #require(try store.consumeState(stateHash: "state-1", nonceHash: "nonce-1", at: clock.now()))
            #expect(target.verificationID == verification && target.stepID == "digilocker" && target.language == "hi")
            #expect(try store.consumeState(stateHash: "state-1", nonceHash: "nonce-1", at: clock.now()) == nil)
            // Where it was issued for stays known, to send a late browser back.
            #expect(try store.target(stateHash: "state-1") == target)
            #expect(try store.target(stateHash: "state-unknown") == nil)
            #expect(try store.consumeState(stateHash: "state-unknown", nonceHash: "nonce-1", at: clock.now()) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aWrongNonceLeavesTheStateUnused(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, verification in
            try insertState(store, clock, verification, language: nil)
            #expect(try store.consumeState(stateHash: "state-1", nonceHash: "nonce-other", at: clock.now()) == nil)
            let target = try #require(try store.consumeState(stateHash: "state-1", nonceHash: "nonce-1", at: clock.now()))
            #expect(target.verificationID == verification && target.language == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aStateIsUsableUntilItExpires(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, verification in
            try insertState(store, clock, verification, state: "state-1")
            try insertState(store, clock, verification, state: "state-2", nonce: "nonce-2")
            clock.advance(by: Self.lifetime - 1)
            #expect(try store.consumeState(stateHash: "state-1", nonceHash: "nonce-1", at: clock.now()) != nil)
            clock.advance(by: 1)
            #expect(try store.consumeState(stateHash: "state-2", nonceHash: "nonce-2", at: clock.now()) == nil)
            #expect(try store.target(stateHash: "state-2")?.verificationID == verification)
        }
    }

    @Test(arguments: Backend.allCases)
    func aStateIsIssuedOnce(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, verification in
            try insertState(store, clock, verification)
            let other = try storeVerification(db, accountID: try makeAccount(db, name: "Other"))
            #expect(throws: DatabaseError.self) { try insertState(store, clock, other) }
            #expect(try store.target(stateHash: "state-1")?.verificationID == verification)
        }
    }

    @Test(arguments: Backend.allCases)
    func ofTwentyParallelCallbacksExactlyOneUsesTheState(_ backend: Backend) throws {
        try withStore(backend, poolSize: 8) { _, store, clock, verification in
            try insertState(store, clock, verification)
            let targets = Collected<DigiLockerStore.StateTarget>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 20) { _ in
                do {
                    if let target = try store.consumeState(stateHash: "state-1", nonceHash: "nonce-1", at: clock.now()) {
                        targets.append(target)
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(targets.all.count == 1)
        }
    }

    // MARK: Simulator

    @Test(arguments: Backend.allCases)
    func aSimulatorCodeIsUsedOnceBeforeItExpires(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, _ in
            for code in ["code-1", "code-2"] {
                try store.insertSimulatorCode(codeHash: code, clientID: "client", redirectURI: "https://verify.example.com/cb",
                                              codeChallenge: "challenge-\(code)", at: clock.now(),
                                              expiresAt: clock.now().addingTimeInterval(60))
            }
            let grant = try #require(try store.consumeSimulatorCode(codeHash: "code-1", at: clock.now()))
            #expect(grant.clientID == "client" && grant.redirectURI == "https://verify.example.com/cb")
            #expect(grant.codeChallenge == "challenge-code-1")
            #expect(try store.consumeSimulatorCode(codeHash: "code-1", at: clock.now()) == nil)
            #expect(try store.consumeSimulatorCode(codeHash: "code-unknown", at: clock.now()) == nil)
            clock.advance(by: 60)
            #expect(try store.consumeSimulatorCode(codeHash: "code-2", at: clock.now()) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aSimulatorTokenIsLiveUntilItExpires(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, _ in
            try store.insertSimulatorToken(tokenHash: "token-1", at: clock.now(), expiresAt: clock.now().addingTimeInterval(3600))
            #expect(try store.simulatorTokenIsLive(tokenHash: "token-1", at: clock.now()))
            #expect(try !store.simulatorTokenIsLive(tokenHash: "token-unknown", at: clock.now()))
            clock.advance(by: 3599)
            #expect(try store.simulatorTokenIsLive(tokenHash: "token-1", at: clock.now()))
            clock.advance(by: 1)
            #expect(try !store.simulatorTokenIsLive(tokenHash: "token-1", at: clock.now()))
        }
    }
}
