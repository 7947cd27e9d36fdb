import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// MARK: - VerificationStore listing

extension StoreContractTests {
    /// `GET /v1/verifications` below HTTP: newest first, filtered, paged by cursor, one account only.
    @Suite struct VerificationStoreListingTests {
        /// Two accounts' verifications, some created in the same millisecond (the cursor must still
        /// visit each once); `mine` newest first, as the listing must return them.
        struct Fixture {
            let store: VerificationStore
            let account: ObjectID
            let other: ObjectID
            let mine: [Verification]
            let theirs: [Verification]
        }

        func withFixture(_ backend: Backend, _ body: (Fixture) throws -> Void) throws {
            try withMigratedDatabase(backend) { (db: any Database) throws in
                let store = VerificationStore(database: db, changes: LocalChangeFeed())
                let account = try makeAccount(db, name: "Mine")
                let other = try makeAccount(db, name: "Theirs")
                func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
                let mine = [
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .created, createdAt: at(0)),
                    makeVerification(accountID: account, userID: "u2", workflowKey: "kyc", status: .inProgress, createdAt: at(1)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "address", status: .submitted, createdAt: at(2)),
                    makeVerification(accountID: account, userID: "u3", workflowKey: "kyc", status: .approved, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .canceled, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u2", workflowKey: "address", status: .rejected, createdAt: at(3)),
                    makeVerification(accountID: account, userID: "u4", workflowKey: "kyc", status: .expired, createdAt: at(5)),
                    makeVerification(accountID: account, userID: "u1", workflowKey: "kyc", status: .expired, createdAt: at(6)),
                    makeVerification(accountID: account, userID: "u1%", workflowKey: "kyc", status: .created, createdAt: at(7)),
                ]
                let theirs = [
                    makeVerification(accountID: other, userID: "u1", workflowKey: "kyc", status: .created, createdAt: at(3)),
                    makeVerification(accountID: other, userID: "u9", workflowKey: "address", status: .expired, createdAt: at(4)),
                    makeVerification(accountID: other, userID: "u1", workflowKey: "address", status: .submitted, createdAt: at(8)),
                ]
                for verification in mine + theirs {
                    let (_, created) = try store.createOrFetchOpen(verification)
                    try #require(created)
                }
                try body(Fixture(store: store, account: account, other: other, mine: Self.newestFirst(mine), theirs: theirs))
            }
        }

        /// Newest first; within one millisecond, by id descending (the listing's total order).
        static func newestFirst(_ verifications: [Verification]) -> [Verification] {
            verifications.sorted {
                ($0.createdAt, $0.id.rawValue) > ($1.createdAt, $1.id.rawValue)
            }
        }

        /// Every page of a listing, following `startingAfter`; fails the test after too many pages.
        func allPages(_ fixture: Fixture, filter: VerificationStore.Filter = .init(), limit: Int) throws -> [[Verification]] {
            var pages: [[Verification]] = []
            var cursor: ObjectID?
            while pages.count <= fixture.mine.count + 1 {
                let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: filter, limit: limit, startingAfter: cursor)
                pages.append(page)
                guard hasMore else { return pages }
                guard let last = page.last else {
                    Issue.record("has_more with an empty page")
                    return pages
                }
                cursor = last.id
            }
            Issue.record("paging did not end")
            return pages
        }

        @Test(arguments: Backend.allCases)
        func theListIsNewestFirstAndHoldsNoRowOfAnotherAccount(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 100, startingAfter: nil)
                #expect(page.map(\.id) == fixture.mine.map(\.id))
                #expect(page == fixture.mine)
                #expect(!hasMore)
                #expect(page.allSatisfy { $0.accountID == fixture.account })
                let theirs = try fixture.store.list(accountID: fixture.other, filter: .init(), limit: 100, startingAfter: nil).0
                #expect(theirs.map(\.id) == Self.newestFirst(fixture.theirs).map(\.id))
            }
        }

        @Test(arguments: Backend.allCases)
        func theUserFilterMatchesTheWholeIDExactly(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                func list(_ userID: String) throws -> [ObjectID] {
                    try fixture.store.list(accountID: fixture.account, filter: .init(userID: userID), limit: 100, startingAfter: nil).0.map(\.id)
                }
                #expect(try list("u1") == fixture.mine.filter { $0.userID == "u1" }.map(\.id))
                #expect(try list("u1").count == 4)
                #expect(try list("u1%") == fixture.mine.filter { $0.userID == "u1%" }.map(\.id))
                #expect(try list("u").isEmpty)
                #expect(try list("U1").isEmpty)
                #expect(try list("u%").isEmpty)
                #expect(try list("u9").isEmpty)  // another account's user
            }
        }

        @Test(arguments: Backend.allCases)
        func theWorkflowAndStatusFiltersAloneAndTogether(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                func list(_ filter: VerificationStore.Filter) throws -> [ObjectID] {
                    try fixture.store.list(accountID: fixture.account, filter: filter, limit: 100, startingAfter: nil).0.map(\.id)
                }
                #expect(try list(.init(workflowKey: "address")) == fixture.mine.filter { $0.workflowKey == "address" }.map(\.id))
                #expect(try list(.init(workflowKey: "address")).count == 2)
                #expect(try list(.init(workflowKey: "kyc2")).isEmpty)
                for status in VerificationStatus.allCases {
                    #expect(try list(.init(status: status)) == fixture.mine.filter { $0.status == status }.map(\.id))
                }
                #expect(try list(.init(status: .expired)).count == 2)
                let together = VerificationStore.Filter(userID: "u1", workflowKey: "kyc", status: .expired)
                #expect(try list(together) == fixture.mine.filter { $0.userID == "u1" && $0.workflowKey == "kyc" && $0.status == .expired }.map(\.id))
                #expect(try list(together).count == 1)
            }
        }

        @Test(arguments: Backend.allCases)
        func aLimitCutsThePageAndSaysWhetherMoreFollow(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let count = fixture.mine.count
                for limit in [1, 3, count - 1, count, count + 1] {
                    let (page, hasMore) = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: limit, startingAfter: nil)
                    #expect(page.map(\.id) == fixture.mine.prefix(limit).map(\.id), "limit \(limit)")
                    #expect(hasMore == (limit < count), "limit \(limit)")
                }
            }
        }

        @Test(arguments: Backend.allCases)
        func pagingWithStartingAfterVisitsEveryRowExactlyOnce(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                for limit in 1...(fixture.mine.count + 1) {
                    let pages = try allPages(fixture, limit: limit)
                    #expect(pages.flatMap { $0 }.map(\.id) == fixture.mine.map(\.id), "limit \(limit)")
                    #expect(pages.dropLast().allSatisfy { $0.count == limit }, "limit \(limit)")
                    #expect(pages.count == (fixture.mine.count + limit - 1) / limit, "limit \(limit)")
                }
            }
        }

        @Test(arguments: Backend.allCases)
        func pagingAFilteredListVisitsEveryMatchingRowExactlyOnce(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let filter = VerificationStore.Filter(userID: "u1")
                let pages = try allPages(fixture, filter: filter, limit: 1)
                #expect(pages.flatMap { $0 }.map(\.id) == fixture.mine.filter { $0.userID == "u1" }.map(\.id))
                let kyc = try allPages(fixture, filter: .init(workflowKey: "kyc"), limit: 2)
                #expect(kyc.flatMap { $0 }.map(\.id) == fixture.mine.filter { $0.workflowKey == "kyc" }.map(\.id))
            }
        }

        /// The console's tabs: each status counted, of this account only, and only up to the cap
        /// plus one (a count above the cap means "more than the cap").
        @Test(arguments: Backend.allCases)
        func countsAreExactUpToTheCapAndCappedPastIt(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let tenancy = Tenancy(accountID: fixture.account, livemode: true)
                let exact = Dictionary(grouping: fixture.mine, by: \.status).mapValues(\.count)
                #expect(exact[.created] == 2 && exact[.expired] == 2 && exact[.submitted] == 1)
                func counts(cappedAt cap: Int) throws -> [VerificationStatus: Int] {
                    let counted = try fixture.store.counts(tenancy: tenancy, cappedAt: cap)
                    #expect(Set(counted.keys) == Set(VerificationStatus.allCases), "every status has its count, zero too")
                    return counted.filter { $0.value > 0 }
                }
                #expect(try counts(cappedAt: 100) == exact)
                #expect(try counts(cappedAt: 1) == exact.mapValues { min($0, 2) })
                #expect(try counts(cappedAt: 0) == exact.mapValues { _ in 1 })
                // Test mode's verifications of the account are not these (there are none).
                #expect(try fixture.store.counts(tenancy: Tenancy(accountID: fixture.account, livemode: false), cappedAt: 100).values.allSatisfy { $0 == 0 })
            }
        }

        @Test(arguments: Backend.allCases)
        func startingAfterAVerificationOfAnotherAccountIsRefused(_ backend: Backend) throws {
            try withFixture(backend) { (fixture: Fixture) throws in
                let foreign = try #require(fixture.theirs.first)
                #expect(throws: VerificationStore.UnknownCursor.self) {
                    _ = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 10, startingAfter: foreign.id)
                }
                let unknown = ObjectID(.verification, using: SecureRandom())
                #expect(throws: VerificationStore.UnknownCursor.self) {
                    _ = try fixture.store.list(accountID: fixture.account, filter: .init(), limit: 10, startingAfter: unknown)
                }
            }
        }
    }
}
