import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// MARK: - SignInStore codes

extension StoreContractTests {
    /// SMS codes: a code works once, within 5 tries counted atomically, until it expires or a new
    /// code replaces it.
    @Suite struct SignInStoreCodeTests {
        static let maximumAttempts = 5
        let right = "hmac-right"

        /// A migrated database holding one verification (codes belong to a verification).
        func withVerification(_ backend: Backend, poolSize: Int = 4,
                              _ body: (any Database, SignInStore, ObjectID) throws -> Void) throws {
            try withMigratedDatabase(backend, poolSize: poolSize) { (db: any Database) throws in
                let account = try makeAccount(db)
                let (verification, created) = try VerificationStore(database: db, changes: LocalChangeFeed())
                    .createOrFetchOpen(makeVerification(accountID: account))
                try #require(created)
                try body(db, SignInStore(database: db), verification.id)
            }
        }

        func replace(_ store: SignInStore, _ id: ObjectID, hmac: String, at time: Date = t0, lifetime: TimeInterval = 300) throws {
            try store.replaceCode(verificationID: id, codeHMAC: hmac, at: time, expiresAt: time.addingTimeInterval(lifetime),
                                  message: (id: ObjectID(.message, using: SecureRandom()), sealed: [0x01, 0x02, 0x03]))
        }

        func check(_ store: SignInStore, _ id: ObjectID, _ hmac: String, at time: Date = t0.addingTimeInterval(10)) throws -> SignInStore.CodeCheck {
            try store.checkCode(verificationID: id, codeHMAC: hmac, maximumAttempts: Self.maximumAttempts, at: time)
        }

        @Test(arguments: Backend.allCases)
        func theRightCodeIsAcceptedOnce(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                #expect(try check(store, id, right) == .accepted)
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func wrongCodesAreRejectedAndCounted(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                for _ in 0..<(Self.maximumAttempts - 1) { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                // The last of the allowed tries.
                #expect(try check(store, id, right) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func afterFiveWrongTriesEvenTheRightCodeIsRejected(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right)
                for _ in 0..<Self.maximumAttempts { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func twentyParallelWrongChecksLeaveTheTriesCappedAndTheRightCodeFails(_ backend: Backend) throws {
            try withVerification(backend, poolSize: 8) { db, store, id in
                try replace(store, id, hmac: right)
                let results = Collected<SignInStore.CodeCheck>()
                let failures = Counter()
                DispatchQueue.concurrentPerform(iterations: 20) { index in
                    do {
                        results.append(try check(store, id, "hmac-wrong-\(index)"))
                    } catch {
                        failures.increment()
                    }
                }
                #expect(failures.value == 0)
                #expect(results.all.count == 20)
                #expect(results.all.allSatisfy { $0 == .rejected })
                let attempts = try db.query("SELECT attempts FROM otp_codes WHERE verification_id = \(id.rawValue)")
                #expect(try attempts.first?.int("attempts") == Int64(Self.maximumAttempts))
                #expect(try check(store, id, right) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func anExpiredCodeIsRejected(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: right, at: t0, lifetime: 300)
                #expect(try check(store, id, right, at: t0.addingTimeInterval(301)) == .rejected)
            }
        }

        @Test(arguments: Backend.allCases)
        func aNewCodeReplacesTheOldOne(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: "hmac-old")
                try replace(store, id, hmac: right, at: t0.addingTimeInterval(5))
                #expect(try check(store, id, "hmac-old") == .rejected)
                #expect(try check(store, id, right) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func aNewCodeStartsWithFreshTriesAndItsOwnExpiry(_ backend: Backend) throws {
            try withVerification(backend) { _, store, id in
                try replace(store, id, hmac: "hmac-old", at: t0, lifetime: 300)
                for _ in 0..<Self.maximumAttempts { #expect(try check(store, id, "hmac-wrong") == .rejected) }
                try replace(store, id, hmac: right, at: t0.addingTimeInterval(200), lifetime: 300)
                // Past the old code's expiry, within the new one's.
                #expect(try check(store, id, right, at: t0.addingTimeInterval(400)) == .accepted)
            }
        }

        @Test(arguments: Backend.allCases)
        func everyCodeQueuesItsMessageInTheSameTransaction(_ backend: Backend) throws {
            try withVerification(backend) { db, store, id in
                try replace(store, id, hmac: "hmac-1")
                try replace(store, id, hmac: "hmac-2")
                #expect(try SMSQueueStore(database: db).count() == 2)
                // A message id used twice fails the whole replacement: the code stays what it was.
                let message = ObjectID(.message, using: SecureRandom())
                try store.replaceCode(verificationID: id, codeHMAC: "hmac-3", at: t0, expiresAt: t0.addingTimeInterval(300),
                                      message: (id: message, sealed: [0x01]))
                #expect(throws: DatabaseError.self) {
                    try store.replaceCode(verificationID: id, codeHMAC: "hmac-4", at: t0, expiresAt: t0.addingTimeInterval(300),
                                          message: (id: message, sealed: [0x02]))
                }
                #expect(try SMSQueueStore(database: db).count() == 3)
                #expect(try check(store, id, "hmac-4") == .rejected)
                #expect(try check(store, id, "hmac-3") == .accepted)
            }
        }
    }
}
