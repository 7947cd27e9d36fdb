import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Reviewers' notes below HTTP, on SQLite and PostgreSQL: written on the transaction of the change
/// that records them, listed oldest first per verification, text kept verbatim, erased by
/// redaction.
@Suite struct ReviewNoteStoreContractTests {
    static let actor = EventActor(.apiKey, id: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa")
    let reviewer = ObjectID(.operator, using: SecureRandom())

    /// A migrated database, the store, a hand-moved clock, an account and one of its verifications.
    func withStore(_ backend: Backend,
                   _ body: (any Database, ReviewNoteStore, ManualClock, ObjectID, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend) { (db: any Database) throws in
            let account = try makeAccount(db)
            try body(db, ReviewNoteStore(database: db), ManualClock(t0), account, try storeVerification(db, accountID: account))
        }
    }

    /// Writes a note now, on a transaction of its own; its id.
    @discardableResult
    func write(_ db: any Database, _ store: ReviewNoteStore, _ clock: ManualClock, _ verificationID: ObjectID,
               _ body: String, by operatorID: ObjectID? = nil) throws -> ObjectID {
        let id = ObjectID(.reviewNote, using: SecureRandom())
        try db.transaction { connection in
            try store.insert(id: id, verificationID: verificationID, operatorID: operatorID ?? reviewer, body: body,
                             at: clock.now(), on: connection)
        }
        return id
    }

    @Test(arguments: Backend.allCases)
    func notesAreListedOldestFirst_perVerification(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account, verification throws in
            let other = try storeVerification(db, accountID: account, userID: "user-2")
            let second = ObjectID(.operator, using: SecureRandom())
            let first = try write(db, store, clock, verification, "Photo is blurry.")
            clock.advance(by: 1)
            try write(db, store, clock, other, "Another person's note.")
            let last = try write(db, store, clock, verification, "Asked for a retake.", by: second)
            let notes = try store.notes(verificationID: verification)
            #expect(notes.map(\.id) == [first.rawValue, last.rawValue])
            #expect(notes.map(\.body) == ["Photo is blurry.", "Asked for a retake."])
            #expect(notes.map(\.operatorID) == [reviewer.rawValue, second.rawValue])
            #expect(notes.map(\.createdAt) == [t0, t0.addingTimeInterval(1)])
            #expect(try store.notes(verificationID: other).map(\.body) == ["Another person's note."])
            #expect(try store.notes(verificationID: ObjectID(.verification, using: SecureRandom())).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func theTextIsKeptVerbatim(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, _, verification throws in
            let text = "Name on the PAN: आशा वर्मा\n\t'quoted' \"twice\" -- ; DROP TABLE review_notes; 😀"
            try write(db, store, clock, verification, text)
            #expect(try store.notes(verificationID: verification).map(\.body) == [text])
        }
    }

    @Test(arguments: Backend.allCases)
    func aNoteIsUndoneWithTheChangeThatRecordsIt(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, _, verification throws in
            struct EventFailed: Error {}
            #expect(throws: EventFailed.self) {
                try db.transaction { connection in
                    try store.insert(id: ObjectID(.reviewNote, using: SecureRandom()), verificationID: verification,
                                     operatorID: reviewer, body: "Never recorded.", at: clock.now(), on: connection)
                    throw EventFailed()
                }
            }
            #expect(try store.notes(verificationID: verification).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNoteIdIsUsedOnce(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, _, verification throws in
            let id = try write(db, store, clock, verification, "First.")
            #expect(throws: DatabaseError.self) {
                try db.transaction { connection in
                    try store.insert(id: id, verificationID: verification, operatorID: reviewer, body: "Second.", at: clock.now(),
                                     on: connection)
                }
            }
            #expect(try store.notes(verificationID: verification).map(\.body) == ["First."])
        }
    }

    @Test(arguments: Backend.allCases)
    func redactionErasesTheVerificationsNotesOnly(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account, verification throws in
            let other = try storeVerification(db, accountID: account, userID: "user-2")
            try write(db, store, clock, verification, "About the person.")
            try write(db, store, clock, other, "About someone else.")
            let verifications = VerificationStore(database: db, changes: LocalChangeFeed(), clock: clock)
            _ = try verifications.update(accountID: account, id: verification, at: clock.now()) {
                try $0.apply(.canceled, at: clock.now(), by: Self.actor)
            }
            _ = try verifications.redact(accountID: account, id: verification, at: clock.now(), by: Self.actor)
            #expect(try store.notes(verificationID: verification).isEmpty)
            #expect(try store.notes(verificationID: other).map(\.body) == ["About someone else."])
        }
    }
}
