import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Console operators below HTTP, on SQLite and PostgreSQL: one email once across the service,
/// a setup link used once and only before it expires, five checks before a lock, a TOTP step
/// used once, sessions that end, tenancy between accounts, and the audit trail.
@Suite struct OperatorStoreContractTests {
    static let setupLifetime: TimeInterval = 72 * 3600
    static let maximumAttempts = 5

    /// A migrated database, the store, a hand-moved clock and an account.
    func withStore(_ backend: Backend, poolSize: Int = 4,
                   _ body: (any Database, OperatorStore, ManualClock, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            try body(db, OperatorStore(database: db), ManualClock(t0), try makeAccount(db))
        }
    }

    /// Invites an operator of `accountID` now, with the setup link whose hash is `setup`.
    @discardableResult
    func invite(_ store: OperatorStore, _ clock: ManualClock, _ accountID: ObjectID, email: String,
                setup: String, role: OperatorRole = .reviewer) throws -> Operator {
        let op = Operator(id: ObjectID(.operator, using: SecureRandom()), accountID: accountID, email: email, role: role,
                          status: .invited, createdAt: clock.now(), lastSignInAt: nil)
        try store.create(op, setupHash: setup, setupExpiresAt: clock.now().addingTimeInterval(Self.setupLifetime),
                         eventID: ObjectID(.operatorEvent, using: SecureRandom()))
        return op
    }

    /// Invites an operator and completes its setup (password "pw-hash", seed "seed", step 100).
    func activeOperator(_ store: OperatorStore, _ clock: ManualClock, _ accountID: ObjectID,
                        email: String = "asha@example.com") throws -> Operator {
        let setup = "setup-\(email)"
        try invite(store, clock, accountID, email: email, setup: setup)
        #expect(try store.keepPendingTOTP(setupHash: setup, sealed: "seed", at: clock.now()) == "seed")
        return try #require(try store.completeSetup(setupHash: setup, passwordHash: "pw-hash", totpStep: 100,
                                                    eventID: newEventID(), at: clock.now()))
    }

    func newEventID() -> ObjectID { ObjectID(.operatorEvent, using: SecureRandom()) }

    // MARK: Operators

    @Test(arguments: Backend.allCases)
    func createdOperatorsAreFoundAndListedInCreationOrderPerAccount(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account in
            let other = try makeAccount(db, name: "Other")
            let first = try invite(store, clock, account, email: "b@example.com", setup: "s1", role: .admin)
            clock.advance(by: 1)
            let second = try invite(store, clock, account, email: "a@example.com", setup: "s2")
            let foreign = try invite(store, clock, other, email: "c@example.com", setup: "s3")
            #expect(try store.list(accountID: account) == [first, second])
            #expect(try store.list(accountID: other) == [foreign])
            #expect(try store.find(id: first.id) == first)
            #expect(try store.find(id: ObjectID(.operator, using: SecureRandom())) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func anEmailIsTakenOnceAcrossEveryAccount(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account in
            let other = try makeAccount(db, name: "Other")
            try invite(store, clock, account, email: "asha@example.com", setup: "s1")
            for owner in [account, other] {
                #expect(throws: DomainError.conflict(detail: "An operator with this email already exists.", code: .operatorExists)) {
                    try invite(store, clock, owner, email: "asha@example.com", setup: "s-\(owner.rawValue)")
                }
            }
            #expect(try store.list(accountID: account).map(\.email) == ["asha@example.com"])
            #expect(try store.list(accountID: other).isEmpty)
            // The refused insert left no event behind either.
            #expect(try store.events(accountID: other).isEmpty)
        }
    }

    // MARK: Setup

    @Test(arguments: Backend.allCases)
    func aSetupLinkShowsOneSeedAndIsUsedOnce(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let invited = try invite(store, clock, account, email: "asha@example.com", setup: "setup-1")
            let target = try #require(try store.setupTarget(setupHash: "setup-1", at: clock.now()))
            #expect(target.0 == invited && target.pendingTOTP == nil)
            // Not before a seed was shown.
            #expect(try store.completeSetup(setupHash: "setup-1", passwordHash: "pw", totpStep: 7, eventID: newEventID(),
                                            at: clock.now()) == nil)
            // Two tabs of one link show the same seed: the first kept.
            #expect(try store.keepPendingTOTP(setupHash: "setup-1", sealed: "seed-a", at: clock.now()) == "seed-a")
            #expect(try store.keepPendingTOTP(setupHash: "setup-1", sealed: "seed-b", at: clock.now()) == "seed-a")
            #expect(try store.setupTarget(setupHash: "setup-1", at: clock.now())?.pendingTOTP == "seed-a")
            let active = try #require(try store.completeSetup(setupHash: "setup-1", passwordHash: "pw", totpStep: 7,
                                                              eventID: newEventID(), at: clock.now()))
            #expect(active.id == invited.id && active.status == .active)
            #expect(try store.find(id: invited.id)?.status == .active)
            #expect(try store.completeSetup(setupHash: "setup-1", passwordHash: "pw2", totpStep: 8, eventID: newEventID(),
                                            at: clock.now()) == nil)
            #expect(try store.setupTarget(setupHash: "setup-1", at: clock.now()) == nil)
            // The kept seed became the operator's.
            let credentials = try #require(try store.beginSignIn(email: "asha@example.com", at: clock.now()))
            #expect(credentials.passwordHash == "pw" && credentials.totpSealed == "seed-a" && credentials.lastStep == 7)
        }
    }

    @Test(arguments: Backend.allCases)
    func aSetupLinkStopsWorkingWhenItExpires(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let invited = try invite(store, clock, account, email: "asha@example.com", setup: "setup-1")
            #expect(try store.keepPendingTOTP(setupHash: "setup-1", sealed: "seed", at: clock.now()) == "seed")
            clock.advance(by: Self.setupLifetime - 1)
            #expect(try store.setupTarget(setupHash: "setup-1", at: clock.now()) != nil)
            clock.advance(by: 1)
            #expect(try store.setupTarget(setupHash: "setup-1", at: clock.now()) == nil)
            #expect(try store.completeSetup(setupHash: "setup-1", passwordHash: "pw", totpStep: 1, eventID: newEventID(),
                                            at: clock.now()) == nil)
            #expect(try store.find(id: invited.id)?.status == .invited)
        }
    }

    @Test(arguments: Backend.allCases)
    func ofTwentyParallelSetupsExactlyOneCompletes(_ backend: Backend) throws {
        try withStore(backend, poolSize: 8) { _, store, clock, account in
            try invite(store, clock, account, email: "asha@example.com", setup: "setup-1")
            _ = try store.keepPendingTOTP(setupHash: "setup-1", sealed: "seed", at: clock.now())
            let completed = Collected<String>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                do {
                    if try store.completeSetup(setupHash: "setup-1", passwordHash: "pw-\(index)", totpStep: 1,
                                               eventID: newEventID(), at: clock.now()) != nil {
                        completed.append("pw-\(index)")
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(completed.all.count == 1)
            #expect(try store.beginSignIn(email: "asha@example.com", at: clock.now())?.passwordHash == completed.all.first)
        }
    }

    @Test(arguments: Backend.allCases)
    func reissuingSetupStartsOverAndEndsSessions_butNotForADisabledOperator(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let op = try activeOperator(store, clock, account)
            try store.insertSession(tokenHash: "session-1", operatorID: op.id, at: clock.now())
            let reissued = try #require(try store.reissueSetup(id: op.id, setupHash: "setup-2",
                                                               setupExpiresAt: clock.now().addingTimeInterval(60),
                                                               eventID: newEventID(), at: clock.now()))
            #expect(reissued.status == .invited)
            #expect(try store.session(tokenHash: "session-1", idleSince: t0.addingTimeInterval(-60),
                                      begunSince: t0.addingTimeInterval(-60), at: clock.now()) == nil)
            // The password and seed are gone: no sign-in until the new link is used.
            #expect(try store.beginSignIn(email: op.email, at: clock.now()) == nil)
            #expect(try store.setupTarget(setupHash: "setup-asha@example.com", at: clock.now()) == nil)
            let target = try #require(try store.setupTarget(setupHash: "setup-2", at: clock.now()))
            #expect(target.0.id == op.id && target.pendingTOTP == nil)
            _ = try store.disable(id: op.id, accountID: nil, by: nil, eventID: newEventID(), at: clock.now())
            #expect(try store.reissueSetup(id: op.id, setupHash: "setup-3", setupExpiresAt: clock.now().addingTimeInterval(60),
                                           eventID: newEventID(), at: clock.now()) == nil)
            #expect(try store.setupTarget(setupHash: "setup-3", at: clock.now()) == nil)
        }
    }

    // MARK: Sign-in

    @Test(arguments: Backend.allCases)
    func onlyAnActiveOperatorCanBeginASignIn_andEachAttemptIsCounted(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            try invite(store, clock, account, email: "invited@example.com", setup: "s-invited")
            #expect(try store.beginSignIn(email: "invited@example.com", at: clock.now()) == nil)
            #expect(try store.beginSignIn(email: "nobody@example.com", at: clock.now()) == nil)
            let op = try activeOperator(store, clock, account)
            #expect(try (1...3).map { _ in try store.beginSignIn(email: op.email, at: clock.now())?.attempt } == [1, 2, 3])
            _ = try store.disable(id: op.id, accountID: account, by: nil, eventID: newEventID(), at: clock.now())
            #expect(try store.beginSignIn(email: op.email, at: clock.now()) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func theFifthFailedCheckLocksUntilTheLockRunsOut(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let op = try activeOperator(store, clock, account)
            let lockedUntil = clock.now().addingTimeInterval(900)
            for attempt in 1...Self.maximumAttempts {
                let credentials = try #require(try store.beginSignIn(email: op.email, at: clock.now()))
                #expect(credentials.attempt == attempt)
                try store.signInFailed(credentials, maximum: Self.maximumAttempts, lockedUntil: lockedUntil, eventID: newEventID(),
                                       at: clock.now())
            }
            #expect(try store.beginSignIn(email: op.email, at: clock.now()) == nil)
            clock.advance(by: 899)
            #expect(try store.beginSignIn(email: op.email, at: clock.now()) == nil)
            clock.advance(by: 1)
            // A lock that has run out starts the count again.
            #expect(try store.beginSignIn(email: op.email, at: clock.now())?.attempt == 1)
            #expect(try store.events(accountID: account).filter { $0.type == "operator.sign_in_failed" }.count == Self.maximumAttempts)
        }
    }

    @Test(arguments: Backend.allCases)
    func parallelAttemptsGetDistinctNumbers(_ backend: Backend) throws {
        try withStore(backend, poolSize: 8) { _, store, clock, account in
            let op = try activeOperator(store, clock, account)
            let attempts = Collected<Int>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 12) { _ in
                do {
                    if let credentials = try store.beginSignIn(email: op.email, at: clock.now()) { attempts.append(credentials.attempt) }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(attempts.all.sorted() == Array(1...12))
        }
    }

    @Test(arguments: Backend.allCases)
    func aCodesStepWorksOnce_andASuccessStartsTheCountAgain(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let op = try activeOperator(store, clock, account)
            _ = try store.beginSignIn(email: op.email, at: clock.now())
            clock.advance(by: 30)
            let credentials = try #require(try store.beginSignIn(email: op.email, at: clock.now()))
            #expect(credentials.attempt == 2)
            // The setup's own step (100) and any before it are used.
            #expect(try store.signInSucceeded(credentials, step: 100, eventID: newEventID(), at: clock.now()) == false)
            #expect(try store.signInSucceeded(credentials, step: 99, eventID: newEventID(), at: clock.now()) == false)
            #expect(try store.signInSucceeded(credentials, step: 101, eventID: newEventID(), at: clock.now()) == true)
            #expect(try store.signInSucceeded(credentials, step: 101, eventID: newEventID(), at: clock.now()) == false)
            #expect(try store.find(id: op.id)?.lastSignInAt == clock.now())
            let next = try #require(try store.beginSignIn(email: op.email, at: clock.now()))
            #expect(next.attempt == 1 && next.lastStep == 101)
            #expect(try store.events(accountID: account).filter { $0.type == "operator.signed_in" }.count == 1)
        }
    }

    // MARK: Sessions

    @Test(arguments: Backend.allCases)
    func aSessionLivesWhileUsed_untilItsLimit_andEndsOnce(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account in
            let op = try activeOperator(store, clock, account)
            let begun = clock.now()
            try store.insertSession(tokenHash: "session-1", operatorID: op.id, at: begun)
            func session(idle: TimeInterval = 1800, limit: TimeInterval = 12 * 3600) throws -> Operator? {
                try store.session(tokenHash: "session-1", idleSince: clock.now().addingTimeInterval(-idle),
                                  begunSince: clock.now().addingTimeInterval(-limit), at: clock.now())
            }
            clock.advance(by: 1000)
            #expect(try session()?.id == op.id)
            // Being seen restarted the idle clock: 1,799 s after that use it still lives.
            clock.advance(by: 1799)
            #expect(try session()?.id == op.id)
            clock.advance(by: 1800)
            #expect(try session() == nil)
            #expect(try session(idle: 3600)?.id == op.id)
            // However busy, not past its limit from the start.
            #expect(try session(idle: 3600, limit: clock.now().timeIntervalSince(begun)) == nil)
            #expect(try store.session(tokenHash: "unknown", idleSince: t0, begunSince: t0, at: clock.now()) == nil)
            try store.endSession(tokenHash: "session-1", at: clock.now())
            #expect(try session(idle: 3600) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func disablingEndsEverySessionOnceAndOnlyWithinTheAccount(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account in
            let other = try makeAccount(db, name: "Other")
            let op = try activeOperator(store, clock, account)
            let admin = try activeOperator(store, clock, account, email: "admin@example.com")
            try store.insertSession(tokenHash: "session-1", operatorID: op.id, at: clock.now())
            try store.insertSession(tokenHash: "session-2", operatorID: op.id, at: clock.now())
            try store.insertSession(tokenHash: "session-admin", operatorID: admin.id, at: clock.now())
            func live(_ token: String) throws -> Bool {
                try store.session(tokenHash: token, idleSince: t0.addingTimeInterval(-60), begunSince: t0.addingTimeInterval(-60),
                                  at: clock.now()) != nil
            }
            // Another account's admin finds no such operator, and changes nothing.
            #expect(try store.disable(id: op.id, accountID: other, by: nil, eventID: newEventID(), at: clock.now()) == nil)
            #expect(try live("session-1") && live("session-2"))
            let disabled = try #require(try store.disable(id: op.id, accountID: account, by: admin.id, eventID: newEventID(),
                                                          at: clock.now()))
            #expect(disabled.status == .disabled && disabled.id == op.id)
            #expect(try !live("session-1") && !live("session-2"))
            #expect(try live("session-admin"))
            // A second disable finds it as it is, and records nothing more.
            #expect(try store.disable(id: op.id, accountID: account, by: admin.id, eventID: newEventID(), at: clock.now())?.status == .disabled)
            let disables = try store.events(accountID: account).filter { $0.type == "operator.disabled" }
            #expect(disables.map(\.operatorID) == [op.id.rawValue] && disables.map(\.actorID) == [admin.id.rawValue])
        }
    }

    // MARK: Audit trail

    @Test(arguments: Backend.allCases)
    func theAuditTrailIsTheAccountsOwn_newestFirst(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account in
            let other = try makeAccount(db, name: "Other")
            let op = try invite(store, clock, account, email: "asha@example.com", setup: "s1")
            clock.advance(by: 1)
            _ = try store.keepPendingTOTP(setupHash: "s1", sealed: "seed", at: clock.now())
            _ = try store.completeSetup(setupHash: "s1", passwordHash: "pw", totpStep: 1, eventID: newEventID(), at: clock.now())
            clock.advance(by: 1)
            try store.record(.signedOut, operatorID: op.id, accountID: account, actorID: op.id, id: newEventID(), at: clock.now())
            try invite(store, clock, other, email: "other@example.com", setup: "s2")
            let events = try store.events(accountID: account)
            #expect(events.map(\.type) == ["operator.signed_out", "operator.setup_completed", "operator.created"])
            #expect(events.allSatisfy { $0.operatorID == op.id.rawValue })
            #expect(events.map(\.createdAt) == [t0.addingTimeInterval(2), t0.addingTimeInterval(1), t0])
            #expect(try store.events(accountID: account, limit: 1).map(\.type) == ["operator.signed_out"])
            #expect(try store.events(accountID: other).map(\.type) == ["operator.created"])
        }
    }
}
