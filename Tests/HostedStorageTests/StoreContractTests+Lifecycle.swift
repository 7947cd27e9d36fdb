import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// MARK: - The verification lifecycle below HTTP: events, expiry, redaction, retention

extension StoreContractTests {
    @Suite struct LifecycleTests {
        static let actor = EventActor(.apiKey, id: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa")

        /// A migrated database, a store on a hand-moved clock, and an account.
        func withStore(_ backend: Backend, poolSize: Int = 4,
                       _ body: (any Database, VerificationStore, ManualClock, ObjectID) throws -> Void) throws {
            try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
                let clock = ManualClock(t0)
                let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: clock)
                try body(db, store, clock, try makeAccount(db))
            }
        }

        /// A new verification of one selfie step, created as the API creates them (with its event).
        func create(_ store: VerificationStore, _ account: ObjectID, user: String = "user-1", mobile: String = "+919876543210",
                    metadata: [String: String] = [:], expiresIn: TimeInterval = 3600, redactAfter: Int64? = nil) throws -> Verification {
            var verification = Verification(
                id: ObjectID(.verification, using: SecureRandom()), accountID: account, userID: user, workflowKey: "kyc",
                workflowVersion: 1, status: .created, mobile: mobile, returnURL: nil, metadata: metadata,
                steps: [StepState(id: "selfie", type: .selfie)], createdAt: t0, updatedAt: t0,
                expiresAt: t0.addingTimeInterval(expiresIn), redactAfterSeconds: redactAfter)
            try verification.apply(.created, at: t0, by: Self.actor)
            let (stored, created) = try store.createOrFetchOpen(verification)
            try #require(created)
            return stored
        }

        func change(_ store: VerificationStore, _ v: Verification, at time: Date = t0, _ event: VerificationEvent,
                    by actor: EventActor = .journey) throws -> Verification {
            try store.update(accountID: v.accountID, id: v.id, at: time) { try $0.apply(event, at: time, by: actor) }
        }

        func chain(_ db: any Database, _ v: Verification) throws -> [Event] {
            try EventStore(database: db).chain(verificationID: v.id)
        }

        /// Checks the chain the way an auditor outside the service would: from each event's JSON
        /// as served, with JSONSerialization's own sorted, compact encoding — not our writer.
        func expectChainVerifiesIndependently(_ events: [Event]) throws {
            var previous: String?
            for (index, event) in events.enumerated() {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
                #expect(object["sequence"] as? Int == index + 1)
                #expect((object["previous_hash"] as? String) == previous)
                let hash = try #require(object["hash"] as? String)
                object["hash"] = nil
                object["previous_hash"] = nil
                let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                let input = Array((previous ?? "").utf8) + [0x0A] + Array(canonical)
                #expect(Digest.hex(Digest.sha256(input)) == hash, "event \(index + 1) does not hash to its hash")
                previous = hash
            }
        }

        @Test(arguments: Backend.allCases)
        func everyChangeWritesOneEventOfItsTypeAndTheChainVerifies(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, _, account in
                var v = try create(store, account)
                #expect(try chain(db, v).map(\.type) == ["verification.created"])
                let steps: [(VerificationEvent, String)] = [
                    (.updated(fields: ["metadata"]), "verification.updated"),
                    (.signedIn(method: .sms), "verification.signed_in"),
                    (.signedIn(method: .handoff), "verification.signed_in"),
                    (.stepCompleted(stepID: "selfie"), "verification.step_completed"),
                    (.submitted, "verification.submitted"),
                    (.submitted, ""),  // a repeat writes nothing
                    (.decided(approved: false, reason: "document_blurry"), "verification.rejected"),
                ]
                var expected = ["verification.created"]
                for (event, type) in steps {
                    v = try change(store, v, event)
                    if !type.isEmpty { expected.append(type) }
                    #expect(try chain(db, v).map(\.type) == expected, "after \(event)")
                }
                v = try store.redact(accountID: account, id: v.id, at: t0, by: Self.actor)
                expected.append("verification.redacted")
                let events = try chain(db, v)
                #expect(events.map(\.type) == expected)
                #expect(events.map(\.sequence) == Array(1...Int64(expected.count)))
                #expect(events.last?.actorKind == "api_key" && events.last?.actorID == Self.actor.id)
                #expect(events[2].data == #"{"method":"sms"}"#)
                #expect(events.first(where: { $0.type == "verification.rejected" })?.data == #"{"reason":"document_blurry","status":"rejected"}"#)
                try expectChainVerifiesIndependently(events)
                let report = try EventStore(database: db).audit(accountID: account)
                #expect(report.broken == nil && report.events == expected.count && report.chains == 1)
            }
        }

        @Test(arguments: Backend.allCases)
        func twentyParallelChangesKeepTheSequenceGapFree(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend, poolSize: 8) { db, store, _, account in
                let v = try create(store, account)
                let failures = Collected<String>()
                DispatchQueue.concurrentPerform(iterations: 20) { index in
                    do {
                        _ = try store.update(accountID: account, id: v.id, at: t0) { current in
                            current.metadata = ["n": String(index)]
                            try current.apply(.updated(fields: ["metadata"]), at: t0, by: Self.actor)
                        }
                    } catch {
                        failures.append(String(describing: error))
                    }
                }
                #expect(failures.all.isEmpty)
                let events = try chain(db, v)
                #expect(events.map(\.sequence) == Array(1...21))
                try expectChainVerifiesIndependently(events)
            }
        }

        @Test(arguments: Backend.allCases)
        func theAuditNamesTheFirstTamperedOrMissingEvent(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, _, account in
                var v = try create(store, account)
                for event in [VerificationEvent.signedIn(method: .sms), .stepCompleted(stepID: "selfie"), .submitted] {
                    v = try change(store, v, event)
                }
                let audit = EventStore(database: db)
                #expect(try audit.audit(accountID: nil).broken == nil)
                // An edited event: its own hash no longer matches.
                try db.query("UPDATE events SET data = '{\"method\":\"handoff\"}' WHERE verification_id = \(v.id.rawValue) AND sequence = 2")
                var broken = try #require(try audit.audit(accountID: nil).broken)
                #expect(broken.sequence == 2 && broken.reason.contains("hash"))
                // Its hash recomputed too: now the next event's link breaks.
                let edited = try audit.chain(verificationID: v.id)[1]
                try db.query("UPDATE events SET hash = \(EventStore.hash(of: edited)) WHERE id = \(edited.id.rawValue)")
                broken = try #require(try audit.audit(accountID: nil).broken)
                #expect(broken.sequence == 3 && broken.reason.contains("previous_hash"))
                // A deleted event: the sequence has a gap.
                try db.query("DELETE FROM events WHERE verification_id = \(v.id.rawValue) AND sequence IN (2, 3)")
                broken = try #require(try audit.audit(accountID: nil).broken)
                #expect(broken.sequence == 4 && broken.reason.contains("sequence"))
            }
        }

        @Test(arguments: Backend.allCases)
        func theAuditNamesAChainWhoseNewestEventsWereDeleted(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, _, account in
                var v = try create(store, account)
                for event in [VerificationEvent.signedIn(method: .sms), .stepCompleted(stepID: "selfie"), .submitted] {
                    v = try change(store, v, event)
                }
                let audit = EventStore(database: db)
                #expect(try audit.audit(accountID: account).broken == nil)
                // Every remaining link holds, but the row records event 4 as the chain's newest.
                try db.query("DELETE FROM events WHERE verification_id = \(v.id.rawValue) AND sequence = 4")
                var broken = try #require(try audit.audit(accountID: account).broken)
                #expect(broken.verificationID == v.id.rawValue && broken.sequence == 3)
                #expect(broken.reason.contains("ends at sequence 3") && broken.reason.contains("sequence 4"))
                // The whole chain gone is caught too.
                try db.query("DELETE FROM events WHERE verification_id = \(v.id.rawValue)")
                broken = try #require(try audit.audit(accountID: account).broken)
                #expect(broken.verificationID == v.id.rawValue && broken.reason.contains("ends at sequence 0"))
            }
        }

        @Test(arguments: Backend.allCases)
        func expiryOnReadAndBySweepForBothReasons(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, clock, account in
                let untouched = try create(store, account, user: "never-came")
                var started = try create(store, account, user: "came-once")
                started = try change(store, started, .signedIn(method: .sms))
                started = try change(store, started, .stepCompleted(stepID: "selfie"))
                clock.advance(by: 3599)
                #expect(try store.verification(accountID: account, id: untouched.id)?.status == .created)
                #expect(try store.expireDue(at: clock.now()) == 0)
                clock.advance(by: 1)
                // On read: never shown open past expires_at.
                let read = try #require(try store.verification(accountID: account, id: untouched.id))
                #expect(read.status == .expired && read.expiredReason == "not_started" && read.lastStep == nil)
                _ = try store.verification(id: untouched.id)  // a second read writes nothing more
                let expiredEvents = try chain(db, untouched).filter { $0.type == "verification.expired" }
                #expect(expiredEvents.count == 1)
                #expect(expiredEvents.first?.actorKind == "system")
                #expect(expiredEvents.first?.data == #"{"last_step":null,"reason":"not_started","status":"expired"}"#)
                // By the sweeper.
                #expect(try store.expireDue(at: clock.now()) == 1)
                let swept = try #require(try store.verification(accountID: account, id: started.id))
                #expect(swept.status == .expired && swept.expiredReason == "abandoned" && swept.lastStep == "selfie")
                #expect(try chain(db, started).last?.data == #"{"last_step":"selfie","reason":"abandoned","status":"expired"}"#)
                #expect(try store.expireDue(at: clock.now()) == 0)
                // A new create for the same user and workflow is a new verification.
                let again = try create(store, account, user: "never-came")
                #expect(again.id != untouched.id)
            }
        }

        @Test(arguments: Backend.allCases)
        func thirtyExpiringAtOnceOnThreeSweepersGetOneEventEach(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend, poolSize: 6) { db, store, clock, account in
                let all = try (0..<30).map { try create(store, account, user: "u\($0)") }
                clock.advance(by: 3600)
                let counts = Collected<Int>()
                DispatchQueue.concurrentPerform(iterations: 3) { _ in
                    counts.append((try? store.expireDue(at: clock.now())) ?? -1)
                }
                // A row one sweeper holds is skipped by the others; a last pass finds nothing left.
                let last = try store.expireDue(at: clock.now())
                #expect(counts.all.reduce(0, +) + last == 30)
                for v in all {
                    #expect(try chain(db, v).filter { $0.type == "verification.expired" }.count == 1)
                }
            }
        }

        @Test(arguments: Backend.allCases)
        func retentionRedactsOnScheduleAsTheSystem(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, clock, account in
                var kept = try create(store, account, user: "kept", metadata: ["k": "v"], redactAfter: 86_400)
                kept = try change(store, kept, .canceled, by: Self.actor)
                #expect(kept.redactAt == t0.addingTimeInterval(86_400))
                clock.advance(by: 86_399)
                #expect(try store.redactDue(at: clock.now()) == 0)
                clock.advance(by: 1)
                #expect(try store.redactDue(at: clock.now()) == 1)
                #expect(try store.redactDue(at: clock.now()) == 0)
                let redacted = try #require(try store.verification(accountID: account, id: kept.id))
                #expect(redacted.redactedAt != nil && redacted.userID == Verification.redactedUserIDPrefix + kept.id.rawValue && redacted.metadata.isEmpty)
                let last = try #require(try chain(db, kept).last)
                #expect(last.type == "verification.redacted" && last.actorKind == "system" && last.actorID == nil)
            }
        }

        @Test(arguments: Backend.allCases)
        func twoRedactedDecisionsOfOneWorkflowDoNotCollide(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try withStore(backend) { db, store, _, account in
                // Approved and rejected ones stay in the open-verification index (a new create
                // for the user answers with them): their redacted user ids must differ.
                for user in ["first", "second"] {
                    var v = try create(store, account, user: user)
                    for event in [VerificationEvent.signedIn(method: .sms), .stepCompleted(stepID: "selfie"), .submitted,
                                  .decided(approved: true, reason: nil)] {
                        v = try change(store, v, event)
                    }
                    v = try store.redact(accountID: account, id: v.id, at: t0, by: Self.actor)
                    #expect(v.redactedAt == t0)
                }
                #expect(try EventStore(database: db).audit(accountID: account).events == 12)
            }
        }

        @Test(arguments: Backend.allCases)
        func redactionLeavesNoPersonalValueInTheDatabaseFiles(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            let database = try TestDatabaseURL(backend)
            defer { database.remove() }
            let db = try database.open()
            let distinctive = ["redact-me-user-7f3a9c", "+919812345678", "metadata-value-8d2e41", "Zebulon Quixote", "IMAGE-BYTES-5b1c"]
            do {
                defer { db.close() }
                try Migrator(dialect: db.dialect).migrate(db)
                let clock = ManualClock(t0)
                let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: clock)
                let account = try makeAccount(db)
                var v = try create(store, account, user: distinctive[0], mobile: distinctive[1], metadata: ["ref": distinctive[2]])
                let artifacts = ArtifactStore(database: db)
                let photo = ObjectID(.artifact, using: SecureRandom())
                v = try store.update(accountID: account, id: v.id, at: t0) { current, connection in
                    try artifacts.insert(id: photo, verificationID: v.id, stepID: "selfie", contentType: "image/jpeg",
                                         content: Array(String(repeating: distinctive[4], count: 2000).utf8), at: t0, on: connection)
                    try artifacts.insert(id: ObjectID(.artifact, using: SecureRandom()), verificationID: v.id, stepID: "profile",
                                         contentType: "application/json", content: Array(#"{"full_name":"\#(distinctive[3])"}"#.utf8),
                                         at: t0, on: connection)
                    current.steps[0].artifacts = [photo.rawValue]
                    try current.apply(.stepCompleted(stepID: "selfie"), at: t0, by: .journey)
                }
                try SignInStore(database: db).addToOutbox(id: ObjectID(.message, using: SecureRandom()), to: distinctive[1],
                                                          body: "Your code is 123456", at: t0)
                _ = try RateLimitStore(database: db).take(bucket: "otp-number:\(distinctive[1])", at: t0, interval: 720, burst: 5)
                let idempotency = IdempotencyStore(database: db)
                _ = try idempotency.claim(accountID: account, key: "create-1", requestHash: "h", at: t0)
                try idempotency.complete(accountID: account, key: "create-1", status: 201, contentType: "application/json",
                                         body: Array(#"{"id":"\#(v.id.rawValue)","user_id":"\#(distinctive[0])"}"#.utf8))
                v = try change(store, v, .canceled, by: Self.actor)
                v = try store.redact(accountID: account, id: v.id, at: t0, by: Self.actor)
                #expect(v.userID == Verification.redactedUserIDPrefix + v.id.rawValue && v.mobile.isEmpty && v.metadata.isEmpty && v.redactedAt == t0)
                #expect(throws: DomainError.gone(detail: "This artifact was erased when its verification was redacted.", code: .artifactRedacted)) {
                    try artifacts.content(id: photo, verificationID: v.id)
                }
                // Repeating it is a no-op: no second event.
                _ = try store.redact(accountID: account, id: v.id, at: t0.addingTimeInterval(5), by: Self.actor)
                #expect(try chain(db, v).filter { $0.type == "verification.redacted" }.count == 1)
                #expect(try EventStore(database: db).audit(accountID: account).broken == nil)
                // Every byte the store keeps, as a file scan (SQLite: main file and WAL, while the
                // database is open, as under a running server) or a dump.
                let kept = try Self.everyStoredByte(database)
                let scanned = kept.count
                #expect(scanned > 0)
                for value in distinctive {
                    let found = kept.contains(text: value)
                    #expect(!found, "\(value) is still stored")
                }
            }
        }

        /// SQLite: the bytes of the database file and its WAL. PostgreSQL: `pg_dump` of the schema.
        static func everyStoredByte(_ database: TestDatabaseURL) throws -> [UInt8] {
            switch database.url {
            case .sqlite(let path):
                return [path, path + "-wal"].flatMap { (try? Array(Data(contentsOf: URL(fileURLWithPath: $0)))) ?? [] }
            case .postgres(let url):
                let schema = String(url.split(separator: "%3D").last ?? "")
                let base = String(url.split(separator: "?").first ?? "")
                let candidates = [ProcessInfo.processInfo.environment["PG_BIN"].map { $0 + "/pg_dump" },
                                  "/usr/lib/postgresql/15/bin/pg_dump", "/usr/bin/pg_dump"].compactMap { $0 }
                let tool = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "pg_dump is needed")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = ["--data-only", "--schema=\(schema)", "--dbname=\(base)"]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let bytes = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                return Array(bytes)
            }
        }
    }
}
