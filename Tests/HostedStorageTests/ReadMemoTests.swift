import Foundation
import HostedCore
@testable import HostedStorage
import HostedTestSupport
import Testing

/// The memo of recent reads never answers with what the database no longer says, and lets go
/// of what a verification held once it changes.
@Suite struct ReadMemoTests {
    @Test func aValueIsOnlyGivenWhereTheCheckAcceptsIt() {
        let memo = ReadMemo<Int>(capacity: 8)
        memo.remember(1, for: "ver_a", ticket: memo.ticket(for: "ver_a"))
        #expect(memo.value(for: "ver_a", where: { $0 == 1 }) == 1)
        #expect(memo.value(for: "ver_a", where: { $0 == 2 }) == nil)
        #expect(memo.value(for: "ver_b", where: { _ in true }) == nil)
    }

    @Test func whatAReadMadeIsNotKeptWhenItsObjectChangedDuringTheRead() {
        let memo = ReadMemo<Int>(capacity: 8)
        let byID = memo.ticket(for: "ver_a")
        let byOther = memo.ticket(for: nil)
        memo.forget("ver_a")
        memo.remember(1, for: "ver_a", ticket: byID)
        memo.remember(1, for: "ver_a", ticket: byOther)
        #expect(memo.count == 0)
        memo.remember(1, for: "ver_a", ticket: memo.ticket(for: "ver_a"))
        #expect(memo.count == 1)
    }

    @Test func forgettingOneIDOrEverything() {
        let memo = ReadMemo<Int>(capacity: 1024)
        for n in 0..<20 { memo.remember(n, for: "ver_\(n)", ticket: memo.ticket(for: "ver_\(n)")) }
        let kept = memo.count
        #expect(kept > 10)  // direct-mapped: a few of 20 ids may share a slot of 1,024
        memo.forget("ver_3")
        #expect(memo.value(for: "ver_3", where: { _ in true }) == nil)
        memo.forget(nil)
        #expect(memo.count == 0)
    }

    @Test func capacityZeroKeepsNothing() {
        let memo = ReadMemo<Int>(capacity: 0)
        memo.remember(1, for: "ver_a", ticket: memo.ticket(for: "ver_a"))
        #expect(memo.count == 0)
        #expect(memo.value(for: "ver_a", where: { _ in true }) == nil)
    }

    static let actor = EventActor(.apiKey, id: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa")

    func create(_ store: VerificationStore, _ account: ObjectID) throws -> Verification {
        var verification = makeVerification(accountID: account)
        try verification.apply(.created, at: t0, by: Self.actor)
        return try store.createOrFetchOpen(verification).0
    }

    /// A row changed behind the store's back (no revision, no change feed) is read as it is now,
    /// by each read that keeps decoded verifications: by id, the poll, and the open one. (The
    /// personal fields are sealed, so the change is to a column in clear: the return URL.)
    @Test(arguments: Backend.allCases)
    func aRowChangedBehindTheStoresBackIsReadAsItIs(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { db in
            let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: ManualClock(t0))
            let account = try makeAccount(db)
            let v = try create(store, account)
            let poll = { try store.polled(accountID: account, id: v.id, bucket: "poll:\(v.id.rawValue)", at: t0,
                                          interval: 0.001, burst: 1_000_000).1 }
            #expect(try store.verification(accountID: account, id: v.id)?.returnURL == nil)
            #expect(try poll()?.mobile == "+919876543210")
            #expect(store.decoding.memo.count == 1)
            try db.query("UPDATE verifications SET return_url = 'https://app.example.com/a' WHERE id = \(v.id.rawValue)")
            #expect(try store.verification(accountID: account, id: v.id)?.returnURL == "https://app.example.com/a")
            #expect(try poll()?.returnURL == "https://app.example.com/a")
            // Moved to another user (by the keyed hash the store looks users up by).
            let otherUser = PersonalSealing.testing.userKey(accountID: account, userID: "user-1")
            try db.query("UPDATE verifications SET user_key = \(otherUser), return_url = 'https://app.example.com/b' WHERE id = \(v.id.rawValue)")
            #expect(try store.openVerification(accountID: account, userID: "user-1", workflowKey: "kyc")?.returnURL == "https://app.example.com/b")
            #expect(try poll()?.returnURL == "https://app.example.com/b")
        }
    }

    /// A change through the store drops the verification from this store's memo at once, and
    /// from every store that hears the change feed (as other processes do through NOTIFY).
    @Test(arguments: Backend.allCases)
    func aChangeLetsGoOfWhatTheVerificationHeld(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { db in
            let feed = LocalChangeFeed()
            let here = VerificationStore(database: db, changes: feed, clock: ManualClock(t0))
            let elsewhere = VerificationStore(database: db, changes: feed, clock: ManualClock(t0))
            let account = try makeAccount(db)
            let v = try create(here, account)
            _ = try here.update(accountID: account, id: v.id, at: t0) { try $0.apply(.canceled, at: t0, by: Self.actor) }
            _ = try here.verification(accountID: account, id: v.id)
            _ = try elsewhere.verification(accountID: account, id: v.id)
            #expect(here.decoding.memo.count == 1)
            #expect(elsewhere.decoding.memo.count == 1)
            let redacted = try here.redact(accountID: account, id: v.id, at: t0, by: Self.actor)
            #expect(redacted.redactedAt != nil && redacted.mobile.isEmpty)
            #expect(here.decoding.memo.count == 0)
            #expect(elsewhere.decoding.memo.count == 0)
            #expect(try elsewhere.verification(accountID: account, id: v.id)?.mobile == "")
        }
    }
}
