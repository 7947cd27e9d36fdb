import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Pruning below HTTP, on SQLite and PostgreSQL, on a hand-moved clock: each internal table loses
/// a row only once the row is past its use (to the millisecond), what is kept still works, and
/// any number of processes pruning at once delete each row once.
@Suite struct PruningStoreContractTests {
    /// Every table pruning looks after.
    static let tables = ["idempotency_keys", "otp_codes", "handoffs", "journey_sessions", "console_sessions", "continuations",
                         "digilocker_states", "digilocker_sim_codes", "digilocker_sim_tokens", "rate_limits", "poll_limits",
                         "journey_counts", "journey_firsts"]

    /// One row in every table, written at t0 through the stores that own them.
    struct Rows {
        let verificationID: ObjectID
        let accountID: ObjectID
    }

    /// A migrated database holding `Rows`, the store and a clock at t0.
    func withRows(_ backend: Backend, poolSize: Int = 4,
                  _ body: (any Database, PruningStore, ManualClock, Rows) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            let clock = ManualClock(t0)
            let account = try makeAccount(db)
            let verification = try storeVerification(db, accountID: account)
            let random = SecureRandom()
            // A key whose answer is stored for replay.
            let idempotency = IdempotencyStore(database: db)
            #expect(try idempotency.claim(accountID: account, key: "key-1", requestHash: "hash", at: t0) == .claimed)
            try idempotency.complete(accountID: account, key: "key-1", status: 201, contentType: "application/json", body: Array("{}".utf8))
            // A code for 600 s; its message goes to the SMS queue, which pruning leaves alone.
            try SignInStore(database: db).replaceCode(verificationID: verification, codeHMAC: "code", at: t0,
                                                      expiresAt: t0.addingTimeInterval(600),
                                                      message: (id: ObjectID(.message, using: random), sealed: [1]))
            try db.transaction { connection in
                let handoff = Handoff(id: ObjectID(.handoff, using: random), verificationID: verification, accountID: account,
                                      returnURL: nil, createdAt: t0, expiresAt: t0.addingTimeInterval(300))
                try SignInStore(database: db).insertHandoff(handoff, secretHash: "handoff-secret", on: connection)
                try ContinuationStore(database: db).replace(id: ObjectID(.continuation, using: random), verificationID: verification,
                                                            secretHash: "continuation-secret", number: "42", at: t0,
                                                            expiresAt: t0.addingTimeInterval(600), on: connection)
            }
            try SignInStore(database: db).insertSession(tokenHash: "journey-session", verificationID: verification, returnURL: nil,
                                                        at: t0, expiresAt: t0.addingTimeInterval(3600))
            try OperatorStore(database: db).insertSession(tokenHash: "console-session", operatorID: ObjectID(.operator, using: random),
                                                          at: t0)
            let digiLocker = DigiLockerStore(database: db)
            try digiLocker.insertState(stateHash: "state", verificationID: verification, stepID: "digilocker", nonceHash: "nonce",
                                       language: nil, at: t0, expiresAt: t0.addingTimeInterval(600))
            try digiLocker.insertSimulatorCode(codeHash: "sim-code", clientID: "client", redirectURI: "https://verify.example.com/cb",
                                               codeChallenge: "challenge", at: t0, expiresAt: t0.addingTimeInterval(60))
            try digiLocker.insertSimulatorToken(tokenHash: "sim-token", at: t0, expiresAt: t0.addingTimeInterval(3600))
            // Buckets whose arrival time is t0 + 10 s.
            for table in [RateLimitStore.Table.rateLimits, .pollLimits] {
                _ = try RateLimitStore(database: db, table: table).take(bucket: "bucket", at: t0, interval: 10, burst: 1)
            }
            // Journey analytics: a count of t0's UTC day and a first view at t0, kept 400 days.
            let analytics = AnalyticsStore(database: db)
            #expect(try analytics.count(.init(.opened, deviceClass: .phone), verificationID: verification.rawValue, at: t0) != nil)
            #expect(try analytics.noteFirst(verificationID: verification.rawValue, step: "", deviceClass: .phone, at: t0))
            try body(db, PruningStore(database: db), clock, Rows(verificationID: verification, accountID: account))
        }
    }

    /// The tables `prune` deleted rows from now, with how many (tables it left alone omitted).
    func pruned(_ store: PruningStore, _ clock: ManualClock) throws -> [String: Int] {
        try store.prune(at: clock.now()).filter { $0.value != 0 }
    }

    func rowCount(_ db: any Database, _ table: String) throws -> Int {
        Int(try db.query("SELECT count(*) AS n FROM \(unsafeSQL: table)")[0].int("n"))
    }

    @Test(arguments: Backend.allCases)
    func nothingIsPrunedWhileInUse_andEveryTableIsReported(_ backend: Backend) throws {
        try withRows(backend) { db, store, clock, _ throws in
            clock.advance(by: 10)
            #expect(try store.prune(at: clock.now()) == Dictionary(uniqueKeysWithValues: Self.tables.map { ($0, 0) }))
            for table in Self.tables { #expect(try rowCount(db, table) == 1, "\(table)") }
        }
    }

    @Test(arguments: Backend.allCases)
    func eachRowIsPrunedJustPastItsOwnTime(_ backend: Backend) throws {
        try withRows(backend) { db, store, clock, _ throws in
            let day: TimeInterval = 86_400
            let analyticsEnd = AnalyticsDay(t0).adding(days: AnalyticsStore.retentionDays + 1).start.timeIntervalSince(t0)
            // (seconds after t0, what goes then): each row goes the first time it is strictly past its time.
            let schedule: [(TimeInterval, [String: Int])] = [
                (60, ["rate_limits": 1, "poll_limits": 1]),  // their arrival time (t0 + 10 s) has passed
                (61, ["digilocker_sim_codes": 1]),  // expired at t0 + 60 s
                (600, [:]),
                (601, ["otp_codes": 1, "digilocker_states": 1]),  // expired at t0 + 600 s
                (3601, ["digilocker_sim_tokens": 1]),  // expired at t0 + 1 h
                (13 * 3600, [:]),
                (13 * 3600 + 1, ["console_sessions": 1]),  // begun over 13 h ago
                (day, [:]),
                (day + 1, ["idempotency_keys": 1]),  // remembered 24 h
                (day + 301, ["handoffs": 1]),  // a day past its end (t0 + 300 s)
                (day + 601, ["continuations": 1]),  // a day past its end (t0 + 600 s)
                (day + 3600, [:]),
                (day + 3601, ["journey_sessions": 1]),  // a day past its end (t0 + 1 h)
                (analyticsEnd - 0.001, [:]),
                (analyticsEnd, ["journey_counts": 1, "journey_firsts": 1]),  // t0's UTC day is 400 days behind
            ]
            for (seconds, expected) in schedule {
                clock.advance(by: t0.addingTimeInterval(seconds).timeIntervalSince(clock.now()))
                #expect(try pruned(store, clock) == expected, "at t0 + \(Int(seconds)) s")
            }
            for table in Self.tables { #expect(try rowCount(db, table) == 0, "\(table)") }
        }
    }

    @Test(arguments: Backend.allCases)
    func aUsedCodeGoesAtOnce_andAnEndedSessionADayAfterItEnded(_ backend: Backend) throws {
        try withRows(backend) { db, store, clock, rows throws in
            let signIn = SignInStore(database: db)
            try signIn.insertSession(tokenHash: "ended-session", verificationID: rows.verificationID, returnURL: nil, at: t0,
                                     expiresAt: t0.addingTimeInterval(7 * 86_400))
            clock.advance(by: 10)
            #expect(try signIn.checkCode(verificationID: rows.verificationID, codeHMAC: "code", maximumAttempts: 5, at: clock.now())
                    == .accepted)
            try signIn.endSession(tokenHash: "ended-session", at: clock.now())
            #expect(try pruned(store, clock) == ["otp_codes": 1])
            clock.advance(by: 86_400)
            #expect(try pruned(store, clock)["journey_sessions"] == nil)
            clock.advance(by: 1)
            #expect(try pruned(store, clock)["journey_sessions"] == 1)
            // The other session (ended by its time, not yet a day ago) is still there.
            #expect(try rowCount(db, "journey_sessions") == 1)
            #expect(try signIn.session(tokenHash: "ended-session", verificationID: rows.verificationID, at: clock.now()) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func whatIsKeptStillWorks(_ backend: Backend) throws {
        try withRows(backend) { db, store, clock, rows throws in
            clock.advance(by: 61)
            #expect(try pruned(store, clock).keys.sorted() == ["digilocker_sim_codes", "poll_limits", "rate_limits"])
            #expect(try SignInStore(database: db).checkCode(verificationID: rows.verificationID, codeHMAC: "code", maximumAttempts: 5,
                                                            at: clock.now()) == .accepted)
            #expect(try SignInStore(database: db).consumeHandoff(secretHash: "handoff-secret", verificationID: rows.verificationID,
                                                                 at: clock.now()) != nil)
            #expect(try DigiLockerStore(database: db).consumeState(stateHash: "state", nonceHash: "nonce", at: clock.now()) != nil)
            #expect(try DigiLockerStore(database: db).simulatorTokenIsLive(tokenHash: "sim-token", at: clock.now()))
            #expect(try IdempotencyStore(database: db).claim(accountID: rows.accountID, key: "key-1", requestHash: "hash",
                                                             at: clock.now())
                    == .replay(status: 201, contentType: "application/json", body: Array("{}".utf8)))
        }
    }

    @Test(arguments: Backend.allCases)
    func parallelPrunesDeleteEachRowOnce(_ backend: Backend) throws {
        try withRows(backend, poolSize: 8) { db, store, clock, _ throws in
            clock.advance(by: 402 * 86_400)
            let results = Collected<[String: Int]>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    results.append(try store.prune(at: clock.now()))
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(results.all.count == 6)
            let total = results.all.reduce(into: [String: Int]()) { sum, deleted in sum.merge(deleted, uniquingKeysWith: +) }
            #expect(total == Dictionary(uniqueKeysWithValues: Self.tables.map { ($0, 1) }))
            for table in Self.tables { #expect(try rowCount(db, table) == 0, "\(table)") }
        }
    }
}
