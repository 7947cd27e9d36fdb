import Foundation
@testable import HostedApp
import HostedCore
import HostedHTTP
@testable import HostedStorage
import HostedTestSupport
import Testing

/// A repeated create whose body is byte for byte one answered under a second ago, with nothing
/// committed by this process since, gets the same answer without the long way (SQLite only).
@Suite struct RepeatedCreatesTests {
    static let account = ObjectID(.account, parsing: "acct_cfwprq3yy3lcdauhi3aphsujr4")!
    static let other = ObjectID(.account, parsing: "acct_aaaaaq3yy3lcdauhi3aphsujr4")!
    static let start = Date(unixMilliseconds: 1_795_000_000_000)
    static let body = Array(#"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210"}"#.utf8)

    static func answer(expiresAt: Date = start.addingTimeInterval(3600)) -> VerificationReadService.Rendered {
        let verification = Verification(
            id: ObjectID(.verification, parsing: "ver_etmpvx2mnizmxfdcez5f4lnywu")!, accountID: account, userID: "user-1",
            workflowKey: "kyc", workflowVersion: 1, status: .created, mobile: "+919876543210", returnURL: nil, metadata: [:],
            steps: [], createdAt: start, updatedAt: start, expiresAt: expiresAt)
        return VerificationReadService.Rendered(verification: verification, body: Array("{}".utf8), etag: "\"1\"")
    }

    static func read(_ commits: UInt64, after seconds: TimeInterval = 0) -> LocalRead {
        LocalRead(commits: commits, time: start.addingTimeInterval(seconds))
    }

    /// A memo holding `answer` for `body` of `account`, read at 5 commits, at `start`.
    static func remembered(_ answer: VerificationReadService.Rendered = answer(), body: [UInt8] = body) -> RepeatedCreates {
        let repeats = RepeatedCreates()
        let ticket = repeats.ticket(tenancy: Tenancy(accountID: account, livemode: true), body: body)
        repeats.remember(answer, tenancy: Tenancy(accountID: account, livemode: true), body: body, asOf: read(5), ticket: ticket)
        return repeats
    }

    @Test func theSameBytesOfTheSameAccountWhileNothingWasCommittedForUnderASecondGetTheAnswer() {
        let repeats = Self.remembered()
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5, after: 0.9))?.etag == "\"1\"")
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.other, livemode: true), body: Self.body, now: Self.read(5)) == nil)
        var changed = Self.body
        changed[changed.count - 2] = UInt8(ascii: "1")  // another mobile
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: changed, now: Self.read(5)) == nil)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body + [UInt8(ascii: " ")], now: Self.read(5)) == nil)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(6)) == nil)  // a commit since
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5, after: 1)) == nil)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5, after: -0.1)) == nil)
    }

    @Test func anAnswerPastTheVerificationsTimeIsNotGiven() {
        let repeats = Self.remembered(Self.answer(expiresAt: Self.start.addingTimeInterval(0.5)))
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5, after: 0.4)) != nil)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5, after: 0.5)) == nil)
    }

    @Test func bytesThatDecodeToTheSameTextAreStillOtherBytes() {
        // U+FFFD written out, and a byte that is not UTF-8 (which decodes to U+FFFD): one key.
        let written = Array(#"{"user_id":"\#u{FFFD}","workflow":"kyc","mobile":"+919876543210"}"#.utf8)
        let invalid = Array(#"{"user_id":""#.utf8) + [0xFF] + Array(#"","workflow":"kyc","mobile":"+919876543210"}"#.utf8)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: invalid, as: UTF8.self))
        let repeats = Self.remembered(body: written)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: written, now: Self.read(5)) != nil)
        #expect(repeats.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: invalid, now: Self.read(5)) == nil)
    }

    @Test func nothingIsKeptWithoutALocalReadForALargeBodyOrAcrossAChange() {
        let repeats = RepeatedCreates()
        let ticket = repeats.ticket(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body)
        repeats.remember(Self.answer(), tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, asOf: nil, ticket: ticket)  // PostgreSQL
        #expect(repeats.count == 0)
        let large = Array(#"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210","metadata":{"a":"\#(String(repeating: "x", count: 1000))"}}"#.utf8)
        repeats.remember(Self.answer(), tenancy: Tenancy(accountID: Self.account, livemode: true), body: large, asOf: Self.read(5),
                         ticket: repeats.ticket(tenancy: Tenancy(accountID: Self.account, livemode: true), body: large))
        #expect(repeats.count == 0)
        // A verification changed while the read ran: its answer is not kept.
        let before = repeats.ticket(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body)
        repeats.forgetAll()
        repeats.remember(Self.answer(), tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, asOf: Self.read(5), ticket: before)
        #expect(repeats.count == 0)
        // And one kept goes with the next change.
        let kept = Self.remembered()
        #expect(kept.count == 1)
        kept.forgetAll()
        #expect(kept.answer(tenancy: Tenancy(accountID: Self.account, livemode: true), body: Self.body, now: Self.read(5)) == nil)
    }

    // MARK: - Through the application, on both stores

    struct Fixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let clock = ManualClock()

        init(_ store: Store) throws {
            app = try TestApplication(store: store, clock: clock)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            #expect(post("/v1/workflows", #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#).status == 201)
        }

        func create(_ body: String = String(decoding: RepeatedCreatesTests.body, as: UTF8.self)) -> (status: Int, id: String?) {
            let response = post("/v1/verifications", body)
            return (response.status, json(response)["id"] as? String)
        }

        /// A create of `body` now makes a new verification, not `id`.
        func expectAnother(than id: String?, _ body: String = String(decoding: RepeatedCreatesTests.body, as: UTF8.self),
                           sourceLocation: SourceLocation = #_sourceLocation) {
            let fresh = create(body)
            #expect(fresh.status == 201, sourceLocation: sourceLocation)
            #expect(fresh.id != id, sourceLocation: sourceLocation)
        }

        /// Cancels verification `id` as another process would: on SQLite a python3 process
        /// writing the file (this process's count of commits cannot see it); on PostgreSQL any
        /// connection (nothing is kept there).
        func cancelElsewhere(_ id: String) throws {
            let sql = "UPDATE verifications SET status = 'canceled' WHERE id = '\(id)'"
            switch app.database.url {
            case .sqlite(let path):
                let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()"
                #expect(try Subprocess("/usr/bin/env", ["python3", "-c", script, path, sql]).wait() == 0)
            case .postgres:
                try app.application.database.query(SQL(unsafeSQL: sql))
            }
        }
    }

    /// Kept on SQLite, never on PostgreSQL; what is kept goes when any verification changes
    /// (a body is not held past a cancel or redaction), and is not used after any commit.
    @Test(arguments: Store.allCases)
    func aRepeatIsKeptOnSQLiteOnlyAndGoesWithAnyChange(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let repeats = f.app.application.repeatedCreates
        let (status, id) = f.create()
        #expect(status == 201)
        let first = f.post("/v1/verifications", String(decoding: Self.body, as: UTF8.self))
        #expect(first.status == 200)
        #expect(repeats.count == (store == .sqlite ? 1 : 0))
        let again = f.post("/v1/verifications", String(decoding: Self.body, as: UTF8.self))
        #expect(again.status == 200)
        #expect(again.body == first.body)
        #expect(again.headers["ETag"] == first.headers["ETag"])
        #expect(again.headers["Cache-Control"] == "no-store")
        #expect(again.headers["Content-Type"] == first.headers["Content-Type"])
        // A change to any verification (another user's, canceled) empties it.
        let other = f.create(#"{"user_id":"user-2","workflow":"kyc","mobile":"+919876543210"}"#)
        #expect(other.status == 201)
        #expect(f.create() == (200, id))
        #expect(repeats.count == (store == .sqlite ? 1 : 0))
        #expect(f.post("/v1/verifications/\(other.id ?? "")/cancel", "").status == 200)
        #expect(repeats.count == 0)
        #expect(f.create() == (200, id))
        // A cancel through this process is seen by the very next repeat.
        #expect(f.post("/v1/verifications/\(id ?? "")/cancel", "").status == 200)
        f.expectAnother(than: id)
    }

    /// The route takes what is kept (an answer planted here, which the long way would never
    /// give) on SQLite, and never on PostgreSQL, where every repeat asks the database.
    @Test(arguments: Store.allCases)
    func theRouteAnswersARepeatFromWhatIsKeptOnSQLiteOnly(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let (status, id) = f.create()
        #expect(status == 201)
        let account = try f.app.application.accounts.caller(authorization: f.auth[0].1).account.id
        let repeats = f.app.application.repeatedCreates
        let planted = VerificationReadService.Rendered(verification: Self.answer().verification, body: Array(#"{"planted":true}"#.utf8),
                                                  etag: "\"planted\"")
        let now = LocalRead(commits: f.app.application.database.localCommits ?? 0, time: f.clock.now())
        repeats.remember(planted, tenancy: Tenancy(accountID: account, livemode: true), body: Self.body, asOf: now,
                         ticket: repeats.ticket(tenancy: Tenancy(accountID: account, livemode: true), body: Self.body))
        let answered = f.post("/v1/verifications", String(decoding: Self.body, as: UTF8.self))
        #expect(answered.status == 200)
        if store == .sqlite {
            #expect(answered.body == planted.body)
            #expect(answered.headers["ETag"] == "\"planted\"")
        } else {
            #expect(f.app.json(answered)["id"] as? String == id)
        }
        // Other bytes (a space) go the long way, to the real verification.
        #expect(f.create(#"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210" }"#) == (200, id))
    }

    /// The answer is as old as the oldest read behind it: a repeat with other bytes answered
    /// from the store's last read (0.6 s old) is kept as of that read, so a change made by
    /// another process shows 1 s after that read, not 1 s after the second repeat.
    @Test(arguments: Store.allCases)
    func aChangeByAnotherProcessShowsWithinASecondOfTheReadBehindTheAnswer(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let (_, id) = f.create()
        let spaced = #"{"user_id": "user-1", "workflow": "kyc", "mobile": "+919876543210"}"#
        #expect(f.create() == (200, id))  // the store reads the open verification now
        f.clock.advance(by: 0.6)
        #expect(f.create(spaced) == (200, id))  // from that read, and kept as of it
        try f.cancelElsewhere(try #require(id))
        if store == .sqlite {
            #expect(f.create(spaced) == (200, id))  // within the second: unseen, as documented
        }
        f.clock.advance(by: 0.6)
        f.expectAnother(than: id, spaced)
    }

    @Test(arguments: Store.allCases)
    func aKeptAnswerIsNotGivenPastTheVerificationsTime(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let created = f.post("/v1/verifications", String(decoding: Self.body, as: UTF8.self))
        let id = f.app.json(created)["id"] as? String
        guard let expiresAt = (f.app.json(created)["expires_at"] as? String).flatMap(RFC3339.parse) else {
            Issue.record("the created verification has no expires_at")
            return
        }
        f.clock.advance(by: expiresAt.timeIntervalSince(f.clock.now()) - 0.3)
        #expect(f.create() == (200, id))
        f.clock.advance(by: 0.5)
        f.expectAnother(than: id)
    }
}
