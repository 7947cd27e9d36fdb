import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Redaction that reaches every copy (issue 41): a verification's personal values are read back
/// whole, but no byte the store keeps holds one in clear — not the rows, not the files, not a
/// dump or a base backup taken before the redaction; and the redaction's shredded key leaves
/// nothing that opens.
@Suite struct PersonalDataSealingTests {
    static let actor = EventActor(.apiKey, id: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa")
    static let user = "sealed-user-4f8a21"
    static let mobile = "+919811122233"
    static let metadata = "meta-value-93c7e5"
    static let fullName = "Ishaan Quartermaine"
    static let document = "DIGILOCKER-DOC-7d1b"
    static let photo = "PHOTO-BYTES-2e9f"
    static let reason = "reason-text-58ab11"
    static let note = "note-text-c04d77"
    static let latitude = 12.971599
    /// Every value above as it would stand in clear.
    static let personal = [user, mobile, metadata, fullName, document, photo, reason, note, "12.971599"]
    /// Not personal, kept in clear: proves a scan finds what is there.
    static let control = "https://app.example.com/clear-control-5a1e"

    struct Filled {
        let account: ObjectID
        let verification: Verification
        let photo: ObjectID
        let profile: ObjectID
        let noteID: ObjectID
    }

    /// One verification holding every kind of personal value: user id, mobile number, metadata,
    /// a photo taken at a place, a profile form, a DigiLocker document, a rejection's reason, a
    /// reviewer's note and a stored idempotent answer that shows it.
    func fill(_ db: any Database, _ store: VerificationStore) throws -> Filled {
        let account = try makeAccount(db)
        var verification = Verification(
            id: ObjectID(.verification, using: SecureRandom()), accountID: account, userID: Self.user, workflowKey: "kyc",
            workflowVersion: 1, status: .created, mobile: Self.mobile, returnURL: Self.control, metadata: ["ref": Self.metadata],
            steps: [StepState(id: "selfie", type: .selfie)], createdAt: t0, updatedAt: t0, expiresAt: t0.addingTimeInterval(3600))
        try verification.apply(.created, at: t0, by: Self.actor)
        let (created, isNew) = try store.createOrFetchOpen(verification)
        try #require(isNew)
        let artifacts = ArtifactStore(database: db)
        let photo = ObjectID(.artifact, using: SecureRandom())
        let profile = ObjectID(.artifact, using: SecureRandom())
        let prepared = try artifacts.prepare(Array(String(repeating: Self.photo, count: 500).utf8), id: photo,
                                             verificationID: created.id, accountID: account, at: t0)
        var v = try store.update(accountID: account, id: created.id, at: t0) { current, connection in
            try artifacts.insert(prepared, id: photo, verificationID: created.id, stepID: "selfie", contentType: "image/jpeg",
                                 at: t0, on: connection)
            try artifacts.insert(id: profile, verificationID: created.id, stepID: "profile", contentType: "application/json",
                                 content: Array(#"{"full_name":"\#(Self.fullName)"}"#.utf8), at: t0, on: connection)
            try artifacts.insert(id: ObjectID(.artifact, using: SecureRandom()), verificationID: created.id, stepID: "digilocker",
                                 contentType: "application/xml", content: Array("<Certificate>\(Self.document)</Certificate>".utf8),
                                 at: t0, on: connection)
            current.steps[0].artifacts = [photo.rawValue]
            current.steps[0].captures = [Capture(id: photo.rawValue, contentType: "image/jpeg", capturedAt: t0, quality: nil,
                                                 location: CaptureLocation(latitude: Self.latitude, longitude: 77.594566, accuracyM: 20))]
            try current.apply(.stepCompleted(stepID: "selfie"), at: t0, by: .journey)
            try current.apply(.submitted, at: t0, by: .journey)
        }
        let noteID = ObjectID(.reviewNote, using: SecureRandom())
        v = try store.update(accountID: account, id: v.id, at: t0) { current, connection in
            try ReviewNoteStore(database: db).insert(id: noteID, verificationID: v.id, operatorID: ObjectID(.operator, using: SecureRandom()),
                                                     body: Self.note, at: t0, on: connection)
            try current.apply(.reviewed(.note), at: t0, by: Self.actor)
            try current.apply(.decided(approved: false, reason: Self.reason), at: t0, by: Self.actor)
        }
        let idempotency = IdempotencyStore(database: db)
        #expect(try idempotency.claim(accountID: account, key: "create-1", requestHash: "h", at: t0) == .claimed)
        try idempotency.complete(accountID: account, key: "create-1", status: 201, contentType: "application/json",
                                 body: Self.answer(v))
        return Filled(account: account, verification: v, photo: photo, profile: profile, noteID: noteID)
    }

    /// A fresh migrated database of `backend` holding one `fill`ed verification.
    func withFilled(_ backend: Backend, _ body: (TestDatabaseURL, any Database, VerificationStore, Filled) throws -> Void) throws {
        let database = try TestDatabaseURL(backend)
        defer { database.remove() }
        let db = try database.open()
        defer { db.close() }
        try Migrator(dialect: db.dialect).migrate(db)
        let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
        try body(database, db, store, try fill(db, store))
    }

    static func answer(_ v: Verification) -> [UInt8] {
        Array(#"{"id":"\#(v.id.rawValue)","user_id":"\#(user)","metadata":{"ref":"\#(metadata)"}}"#.utf8)
    }

    @Test(arguments: Backend.allCases)
    func everyPersonalValueIsReadBackWhole_butNoneIsStoredInClear(_ backend: Backend) throws {
        guard backend.isAvailable else { return }
        try withFilled(backend) { database, db, store, f in
            let tenancy = live(f.account)

            // Read back whole, through every way the service reads them (a fresh store: no memo).
            let reader = VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
            let read = try #require(try reader.verification(tenancy: tenancy, id: f.verification.id))
            #expect(read.userID == Self.user && read.mobile == Self.mobile && read.metadata == ["ref": Self.metadata])
            #expect(read.decisionReason == Self.reason && read.status == .rejected)
            #expect(read.steps[0].captures.first?.location?.latitude == Self.latitude)
            #expect(read == f.verification)
            #expect(try reader.list(tenancy: tenancy, filter: .init(userID: Self.user), limit: 10, startingAfter: nil).0.map(\.id) == [read.id])
            #expect(try reader.list(tenancy: tenancy, filter: .init(userID: "someone-else"), limit: 10, startingAfter: nil).0.isEmpty)
            #expect(try reader.openVerification(tenancy: tenancy, userID: Self.user, workflowKey: "kyc")?.id == read.id)
            #expect(try reader.queue(tenancy: tenancy, statuses: [.rejected], workflowKey: nil, userID: Self.user, limit: 10,
                                     startingAfter: nil).0.map(\.id) == [read.id])
            let artifacts = ArtifactStore(database: db)
            #expect(try artifacts.content(id: f.profile, verificationID: read.id)?.content == Array(#"{"full_name":"\#(Self.fullName)"}"#.utf8))
            #expect(try artifacts.content(id: f.photo, verificationID: read.id)?.content == Array(String(repeating: Self.photo, count: 500).utf8))
            #expect(try ReviewNoteStore(database: db).notes(verificationID: read.id).map(\.body) == [Self.note])
            #expect(try IdempotencyStore(database: db).claim(accountID: f.account, key: "create-1", requestHash: "h", at: t0)
                    == .replay(status: 201, contentType: "application/json", body: Self.answer(read)))

            // The row holds the keyed hash and a sealed blob; the clear columns hold nothing.
            let row = try #require(try db.query("SELECT user_id, mobile, metadata, decision_reason, user_key, personal FROM verifications WHERE id = \(read.id.rawValue)").first)
            #expect(try row.string("user_id").isEmpty && row.string("mobile").isEmpty && row.string("metadata") == "{}")
            #expect(row["decision_reason"] == .null)
            #expect(try row.string("user_key") == PersonalSealing.testing.userKey(accountID: f.account, userID: Self.user))
            guard case .blob(let sealedPersonal) = row["personal"] else { Issue.record("personal is not sealed"); return }

            // Every byte the store keeps: none of the values, while the control is there.
            let before = try StoreContractTests.LifecycleTests.everyStoredByte(database)
            #expect(before.contains(text: Self.control), "the scan must see what is stored in clear")
            for value in Self.personal { #expect(!before.contains(text: value), "\(value) is stored in clear") }

            // Another secret key opens nothing: the data key is sealed with the service's key.
            let otherService = PersonalSealing(secretKey: Array("another-secret-key-of-another-node".utf8), random: SecureRandom())
            let elsewhere = VerificationStore(database: db, changes: LocalChangeFeed(), sealing: otherService, clock: ManualClock(t0))
            #expect(throws: DataKeyStore.Unreadable.self) { try elsewhere.verification(tenancy: tenancy, id: read.id) }

            // Redaction shreds the key: the sealed blob kept from before no longer opens with anything.
            let redacted = try store.redact(accountID: f.account, id: read.id, at: t0, by: Self.actor)
            #expect(redacted.redactedAt == t0 && redacted.mobile.isEmpty && redacted.metadata.isEmpty)
            #expect(try db.query("SELECT data_key FROM verifications WHERE id = \(read.id.rawValue)").first?["data_key"] == .null)
            #expect(try db.withConnection { try PersonalSealing.testing.keys.existingKey(for: read.id, on: $0) } == nil)
            #expect(try db.query("SELECT personal FROM verifications WHERE id = \(read.id.rawValue)").first?["personal"] == .null)
            #expect(!sealedPersonal.isEmpty)
            let after = try #require(try reader.verification(tenancy: tenancy, id: read.id))
            #expect(after.redactedAt == t0 && after.steps[0].captures.first?.location == nil)
            #expect(try reader.list(tenancy: tenancy, filter: .init(userID: Self.user), limit: 10, startingAfter: nil).0.isEmpty)
        }
    }

    /// The lookup hash as documented (docs/personal-data.md), so a tool outside the service
    /// (bench/sqlite-raw.py, a data export) computes the same key: the value Python's `hmac` gives
    /// (`HOSTED_SECRET_KEY=x bench/sqlite-raw.py --user-key acct_aaaaaaaaaaaaaaaaaaaaaaaaaa u`).
    @Test func theUserKeyIsHMACOfTheAccountAndUserUnderTheDerivedLookupKey() {
        let sealing = PersonalSealing(secretKey: Array("x".utf8), random: SecureRandom())
        #expect(sealing.userKey(accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, userID: "u")
                == "f2f8cac9e6aa73eafb5dcda01feb04081b3728c3c2516fc0ebd9cd9d25047fcb")
    }

    /// Rows written before migration 0029 (clear columns, no keyed hash, no data key) are read as
    /// they are, and `sealUnsealed` seals them without changing what a reader sees.
    @Test(arguments: Backend.allCases)
    func rowsWrittenBeforeTheMigrationAreSealedByTheUpgrade(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { db in
            let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
            let account = try makeAccount(db)
            let (v, _) = try store.createOrFetchOpen(makeVerification(accountID: account, userID: "legacy-user"))
            // As an older version wrote it.
            try db.query("""
                UPDATE verifications SET user_id = 'legacy-user', mobile = '+919800000001', metadata = '{"k":"v"}',
                    user_key = NULL, personal = NULL, data_key = NULL WHERE id = \(v.id.rawValue)
                """)
            #expect(try VerificationStore.hasUnsealed(db))
            let fresh = VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
            let legacy = try #require(try fresh.verification(accountID: account, id: v.id))
            #expect(legacy.userID == "legacy-user" && legacy.mobile == "+919800000001" && legacy.metadata == ["k": "v"])

            #expect(try store.sealUnsealed() == 1)
            #expect(try store.sealUnsealed() == 0)
            #expect(!(try VerificationStore.hasUnsealed(db)))
            let row = try #require(try db.query("SELECT user_id, mobile, personal, revision FROM verifications WHERE id = \(v.id.rawValue)").first)
            #expect(try row.string("user_id").isEmpty && row.string("mobile").isEmpty && row["personal"] != .null)
            #expect(try row.int("revision") == legacy.revision)
            let sealed = try #require(try VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
                .verification(accountID: account, id: v.id))
            #expect(sealed == legacy)
            #expect(try store.openVerification(accountID: account, userID: "legacy-user", workflowKey: "kyc")?.id == v.id)
        }
    }

    /// PostgreSQL: the cluster's own files (heap, indexes, WAL), a `pg_dump` and a base backup
    /// taken before the redaction hold none of the values in clear, before and after it.
    @Test func theServersFilesADumpAndABaseBackupHoldNoPersonalValueInClear() throws {
        let environment = ProcessInfo.processInfo.environment
        guard Backend.postgres.isAvailable, let dataDirectory = environment["HOSTED_TEST_PG_DATA"],
              let server = environment["HOSTED_TEST_POSTGRES_URL"] else { return }
        let tools = environment["HOSTED_TEST_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
        try withFilled(.postgres) { database, db, store, f in
            try db.query("CHECKPOINT")  // the pages on disk, not only in the WAL

            let dump = try StoreContractTests.LifecycleTests.everyStoredByte(database)
            let backup = database.directory.appendingPathComponent("base-backup").path
            let status = try run(tools + "/pg_basebackup", ["-d", server, "-D", backup, "-Fp", "-X", "fetch", "-c", "fast"])
            try #require(status == 0, "pg_basebackup failed")
            _ = try store.redact(accountID: f.account, id: f.verification.id, at: t0, by: Self.actor)
            try db.query("CHECKPOINT")

            for (name, place) in [("the server's files", dataDirectory), ("the base backup", backup)] {
                let found = try FileScan.find(Self.personal + [Self.control], under: place)
                #expect(found.contains(Self.control), "the scan of \(name) must see what is stored in clear")
                #expect(found.subtracting([Self.control]).isEmpty, "in clear in \(name): \(found.subtracting([Self.control]).sorted())")
            }
            #expect(dump.contains(text: Self.control))
            for value in Self.personal { #expect(!dump.contains(text: value), "\(value) is in clear in pg_dump") }
        }
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
