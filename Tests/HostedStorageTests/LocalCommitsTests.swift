import Foundation
import HostedCore
@testable import HostedStorage
import HostedTestSupport
import Testing

/// On SQLite, where this process is the store's only writer, a poll (and a repeated create)
/// answers with what the last one read while no connection of this process has committed
/// anything since, for under a second; a change made by another process shows within that
/// second. On PostgreSQL every one asks the database.
extension ReadMemoTests {
    /// The poll's read (the completion form, as the route calls it).
    func polledRead(_ store: VerificationStore, _ account: ObjectID, _ id: ObjectID) throws -> Verification? {
        let arrival = Arrival<Result<Verification?, any Error>>()
        store.verification(accountID: account, id: id) { arrival.set($0) }
        return try #require(arrival.wait(seconds: 10)).get()
    }

    /// The repeated create's read of the open verification.
    func openRead(_ store: VerificationStore, _ account: ObjectID, user: String = "user-1") throws -> Verification? {
        let arrival = Arrival<Result<FoundVerification?, any Error>>()
        store.openVerification(accountID: account, userID: user, workflowKey: "kyc") { arrival.set($0) }
        return try #require(arrival.wait(seconds: 10)).get()?.verification
    }

    /// Changes the row as a process other than this one would: on SQLite a python3 process
    /// writing the file (this process's count of commits cannot see it); on PostgreSQL a pooled
    /// connection (another session: nothing is kept there anyway).
    func writeElsewhere(_ db: any Database, _ sql: String) throws {
        if let sqlite = db as? SQLiteDatabase {
            let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()"
            #expect(try Subprocess("/usr/bin/env", ["python3", "-c", script, sqlite.path, sql]).wait() == 0)
        } else {
            try db.query(SQL(unsafeSQL: sql))
        }
    }

    @Test(arguments: Backend.allCases)
    func localCommitsMoveAfterEachCommitOnSQLiteAndAreUnknownOnPostgres(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { db in
            guard db.dialect == .sqlite else {
                #expect(db.localCommits == nil)
                return
            }
            let account = try makeAccount(db)
            let start = try #require(db.localCommits)
            _ = try db.query("SELECT id FROM accounts WHERE id = \(account.rawValue)")
            #expect(db.localCommits == start)  // a read commits nothing
            try db.query("UPDATE accounts SET name = 'Beta' WHERE id = \(account.rawValue)")
            let afterUpdate = try #require(db.localCommits)
            #expect(afterUpdate != start)
            try db.transaction { connection in
                try connection.query("UPDATE accounts SET name = 'Gamma' WHERE id = \(account.rawValue)")
                // Not committed yet: a read taken now must not be trusted past the commit.
                #expect(db.localCommits == afterUpdate)
            }
            #expect(db.localCommits != afterUpdate)
        }
    }

    /// A verification of a new account on `backend` that `readFirst` reads, then changed by
    /// another process (`writeElsewhere`: its return URL becomes https://app.example.com/a); `body` goes on.
    func withAVerificationChangedElsewhere(
        _ backend: Backend,
        readFirst: (VerificationStore, ObjectID, Verification) throws -> Void,
        _ body: (any Database, ManualClock, VerificationStore, ObjectID, Verification) throws -> Void
    ) throws {
        try withMigratedDatabase(backend) { db in
            let clock = ManualClock(t0)
            let store = VerificationStore(database: db, changes: LocalChangeFeed(), clock: clock)
            let account = try makeAccount(db)
            let v = try create(store, account)
            try readFirst(store, account, v)
            try writeElsewhere(db, "UPDATE verifications SET return_url = 'https://app.example.com/a' WHERE id = '\(v.id.rawValue)'")
            try body(db, clock, store, account, v)
        }
    }

    @Test(arguments: Backend.allCases)
    func aPollTakesTheLastReadUntilThisProcessCommitsOrASecondPasses(_ backend: Backend) throws {
        try withAVerificationChangedElsewhere(backend, readFirst: { store, account, v throws in
            #expect(try polledRead(store, account, v.id)?.returnURL == nil)
        }) { db, clock, store, account, v in
            clock.advance(by: 0.5)
            // SQLite: the other process's change is not seen yet (no read was made); PostgreSQL reads.
            #expect(try polledRead(store, account, v.id)?.returnURL == (backend == .sqlite ? nil : "https://app.example.com/a"))
            clock.advance(by: 0.5)
            #expect(try polledRead(store, account, v.id)?.returnURL == "https://app.example.com/a")
            // Another account never gets it, kept or not.
            #expect(try polledRead(store, try makeAccount(db, name: "Other"), v.id) == nil)

            // A commit by any connection of this process is seen by the very next poll.
            #expect(try polledRead(store, account, v.id)?.returnURL == "https://app.example.com/a")
            try db.query("UPDATE verifications SET return_url = 'https://app.example.com/b' WHERE id = \(v.id.rawValue)")
            #expect(try polledRead(store, account, v.id)?.returnURL == "https://app.example.com/b")
            if let sqlite = db as? SQLiteDatabase {
                // Even through another pool on the same file: the count is the process's.
                let other = try SQLiteDatabase(path: sqlite.path, poolSize: 1)
                defer { other.close() }
                try other.query("UPDATE verifications SET return_url = 'https://app.example.com/c' WHERE id = \(v.id.rawValue)")
                #expect(try polledRead(store, account, v.id)?.returnURL == "https://app.example.com/c")
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aRepeatedCreateTakesTheLastOpenReadUntilThisProcessCommits(_ backend: Backend) throws {
        try withAVerificationChangedElsewhere(backend, readFirst: { store, account, v throws in
            #expect(try openRead(store, account)?.id == v.id)
            #expect(try openRead(store, account, user: "user-2") == nil)
        }) { _, clock, store, account, v in
            #expect(try openRead(store, account)?.returnURL == (backend == .sqlite ? nil : "https://app.example.com/a"))
            clock.advance(by: 1)
            #expect(try openRead(store, account)?.returnURL == "https://app.example.com/a")
            // Canceled here: the next repeat finds nothing open, at once.
            _ = try store.update(accountID: account, id: v.id, at: clock.now()) { try $0.apply(.canceled, at: t0, by: Self.actor) }
            #expect(try openRead(store, account) == nil)
        }
    }
}
