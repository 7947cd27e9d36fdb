import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// Registered return URLs below HTTP, on SQLite and PostgreSQL: one registration per account and
/// URL, lists in registration order, each account sees and deletes only its own.
@Suite struct ReturnURLStoreContractTests {
    /// A migrated database, the store, a hand-moved clock and an account.
    func withStore(_ backend: Backend, poolSize: Int = 4,
                   _ body: (any Database, ReturnURLStore, ManualClock, ObjectID) throws -> Void) throws {
        try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
            try body(db, ReturnURLStore(database: db), ManualClock(t0), try makeAccount(db))
        }
    }

    func add(_ store: ReturnURLStore, _ clock: ManualClock, _ accountID: ObjectID,
             _ url: String) throws -> (ReturnURLStore.Registered, created: Bool) {
        try store.add(accountID: accountID, id: ObjectID(.returnURL, using: SecureRandom()), url: url, at: clock.now())
    }

    @Test(arguments: Backend.allCases)
    func aURLIsRegisteredOnce_andAgainReturnsTheFirstRegistration(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let (first, created) = try add(store, clock, account, "https://app.example.com/done")
            #expect(created)
            #expect(first.url == "https://app.example.com/done" && first.createdAt == t0)
            clock.advance(by: 5)
            let (again, createdAgain) = try add(store, clock, account, "https://app.example.com/done")
            #expect(!createdAgain)
            #expect(again == first)
            #expect(try store.list(accountID: account) == [first])
        }
    }

    @Test(arguments: Backend.allCases)
    func theListIsInRegistrationOrder(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let b = try add(store, clock, account, "https://b.example.com/").0
            clock.advance(by: 1)
            let a = try add(store, clock, account, "https://a.example.com/").0
            clock.advance(by: 1)
            let c = try add(store, clock, account, "https://c.example.com/").0
            #expect(try store.list(accountID: account) == [b, a, c])
        }
    }

    @Test(arguments: Backend.allCases)
    func eachAccountHasItsOwnRegistrations(_ backend: Backend) throws {
        try withStore(backend) { db, store, clock, account throws in
            let other = try makeAccount(db, name: "Other")
            let mine = try add(store, clock, account, "https://app.example.com/done").0
            let (theirs, created) = try add(store, clock, other, "https://app.example.com/done")
            #expect(created)
            #expect(theirs.id != mine.id)
            #expect(try store.list(accountID: account) == [mine])
            #expect(try store.list(accountID: other) == [theirs])
            // Another account cannot delete mine, even knowing its id.
            #expect(try !store.delete(accountID: other, id: mine.id))
            #expect(try store.list(accountID: account) == [mine])
        }
    }

    @Test(arguments: Backend.allCases)
    func aDeletedURLIsGone_andCanBeRegisteredAnew(_ backend: Backend) throws {
        try withStore(backend) { _, store, clock, account throws in
            let kept = try add(store, clock, account, "https://kept.example.com/").0
            let removed = try add(store, clock, account, "https://app.example.com/done").0
            #expect(try store.delete(accountID: account, id: removed.id))
            #expect(try !store.delete(accountID: account, id: removed.id))
            #expect(try store.list(accountID: account) == [kept])
            clock.advance(by: 1)
            let (anew, created) = try add(store, clock, account, "https://app.example.com/done")
            #expect(created && anew.id != removed.id)
        }
    }

    @Test(arguments: Backend.allCases)
    func parallelRegistrationsOfOneURLMakeOne(_ backend: Backend) throws {
        try withStore(backend, poolSize: 8) { _, store, clock, account throws in
            let results = Collected<(ObjectID, Bool)>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                do {
                    let (registered, created) = try add(store, clock, account, "https://app.example.com/done")
                    results.append((registered.id, created))
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(results.all.filter(\.1).count == 1)
            #expect(Set(results.all.map(\.0)).count == 1)
            #expect(try store.list(accountID: account).map(\.id) == [results.all[0].0])
        }
    }
}
