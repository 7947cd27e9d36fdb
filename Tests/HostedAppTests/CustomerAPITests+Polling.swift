import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedStorage
import HostedHTTP
import HostedTestSupport
import Testing

/// Polling a verification through the customer API: the poll rate limit, poll leases and long-polls.
extension CustomerAPITests {
    @Test(arguments: Store.allCases)
    func getVerification_429_pastTheBurst_thenAllowedAgain(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        for _ in 0..<10 { #expect(f.get("/v1/verifications/\(id)").status == 200) }
        let limited = f.get("/v1/verifications/\(id)")
        #expect(limited.status == 429)
        #expect(f.code(limited) == "rate_limited")
        #expect(limited.headers["Retry-After"] == "1")
        f.clock.advance(by: 1)
        #expect(f.get("/v1/verifications/\(id)").status == 200)
        #expect(f.get("/v1/verifications/\(id)").status == 429)
        f.clock.advance(by: 5)
        for _ in 0..<5 { #expect(f.get("/v1/verifications/\(id)").status == 200) }
        #expect(f.get("/v1/verifications/\(id)").status == 429)
        // The buckets are in `poll_limits` (unlogged on PostgreSQL), not with the durable limits.
        let database = f.app.application.database
        #expect(try database.query("SELECT COUNT(*) AS n FROM poll_limits WHERE bucket LIKE 'poll:%'").first?.int("n") == 1)
        #expect(try database.query("SELECT COUNT(*) AS n FROM rate_limits WHERE bucket LIKE 'poll:%'").first?.int("n") == 0)
        if database.dialect == .postgres {
            #expect(try database.query("SELECT relpersistence FROM pg_class WHERE relname = 'poll_limits'").first?.string("relpersistence") == "u")
        }
    }

    /// At a raised limit a poll takes a lease of polls from the shared bucket in its one
    /// statement; the next polls are plain reads that write nothing, one poll renews the lease
    /// when a quarter is left, and the limit still holds: with 1,000/s and bursts of 200 a lease
    /// is 100 polls, exactly 200 polls are allowed in one instant, and a millisecond later one more.
    @Test(arguments: Store.allCases)
    func pollLease_takesAHundredPollsInOneStatement_andTheBurstStillHolds(_ store: Store) throws {
        guard store.isAvailable else { return }
        let clock = ManualClock()
        let app = try TestApplication(store: store, clock: clock) { configuration in
            configuration.pollRate = 1000
            configuration.pollBurst = 200
        }
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme")
        let auth = [("Authorization", "Bearer \(created.secret.value)")]
        #expect(app.request("POST", "/v1/workflows", headers: auth, body: Fixture.workflow).status == 201)
        let made = app.request("POST", "/v1/verifications", headers: auth,
                               body: #"{"user_id":"u","workflow":"kyc_basic","mobile":"+919876543210"}"#)
        let id = try #require(app.json(made)["id"] as? String)
        let database = app.application.database
        func arrival() throws -> Int64? {
            try database.query("SELECT tat FROM poll_limits WHERE bucket LIKE \("poll:%:" + id)").first?.int("tat")
        }
        func poll() -> Int { app.request("GET", "/v1/verifications/\(id)", headers: auth).status }
        let start = clock.now().unixMilliseconds
        #expect(poll() == 200)
        #expect(try arrival() == start + 100)  // 100 polls of 1 ms taken at once
        for _ in 2...75 { #expect(poll() == 200) }
        #expect(try arrival() == start + 100)  // 74 polls answered from the lease: nothing written
        #expect(poll() == 200)  // the 76th: 25 left, so this one renews
        #expect(try arrival() == start + 200)
        var allowed = 76
        while poll() == 200 { allowed += 1 }
        #expect(allowed == 200)  // the burst, exactly: the third lease did not fit
        #expect(try arrival() == start + 200)
        clock.advance(by: 0.001)
        #expect(poll() == 200)
        #expect(poll() == 429)
        // A lease lasts a second: polls not used by then are not answered from it.
        clock.advance(by: 5)
        #expect(poll() == 200)
        let renewed = try #require(try arrival())
        clock.advance(by: 1.5)
        #expect(poll() == 200)
        #expect(try arrival() != renewed)  // the old lease had expired: a new one was taken
    }

    @Test(arguments: Store.allCases)
    func longPoll_answersWhenTheVerificationChanges_or304AtTimeout(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let created = f.create()
        let id = try #require(f.json(created)["id"] as? String)
        let etag = try #require(created.headers["ETag"])

        let pending = f.poll("/v1/verifications/\(id)?wait=10", headers: [("If-None-Match", etag)])
        let deferred = try #require(pending.deferred)
        let answered = Answer()
        let started = Date()
        deferred.start { answered.set($0) }
        usleep(300_000)
        #expect(answered.value == nil, "must wait while nothing changes")
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)
        let response = try #require(answered.wait(seconds: 5))
        #expect(response.status == 200)
        #expect(f.json(response)["status"] as? String == "canceled")
        #expect(Date().timeIntervalSince(started) < 3)

        let newETag = try #require(response.headers["ETag"])
        let idle = try #require(f.poll("/v1/verifications/\(id)?wait=1", headers: [("If-None-Match", newETag)]).deferred)
        let timedOut = Answer()
        idle.start { timedOut.set($0) }
        #expect(try #require(timedOut.wait(seconds: 5)).status == 304)
        #expect(f.get("/v1/verifications/\(id)?wait=31").status == 422)
    }
}
