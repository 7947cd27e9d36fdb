import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// What test data does differently (issue 40): it sends no SMS (its code is always 000000), it
/// needs no SMS sender at all, and the sweeper deletes it, with everything naming it, seven days
/// after it was created, leaving live data alone. Both stores.
@Suite struct TestModeLifecycleTests {
    struct Fixture {
        let app: TestApplication
        let clock: ManualClock
        let live: [(String, String)]
        let test: [(String, String)]

        init(_ store: Store, devMode: Bool = true) throws {
            let clock = ManualClock(Date())
            self.clock = clock
            app = try TestApplication(store: store, clock: clock) { $0.devMode = devMode }
            let created = try app.application.accounts.createAccount(name: "Acme")
            live = [("Authorization", "Bearer \(created.secret.value)")]
            let made = try app.application.accounts.createKey(accountID: created.account.id, livemode: false)
            test = [("Authorization", "Bearer \(made.secret.value)")]
            _ = app.request("POST", "/v1/workflows", headers: live, body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}]}"#)
        }

        func create(_ auth: [(String, String)], user: String = "user-1") -> String {
            app.json(app.request("POST", "/v1/verifications", headers: auth,
                                 body: #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        }

        func count(_ table: String, _ id: String) throws -> Int64 {
            try app.application.database.query("SELECT count(*) AS n FROM \(unsafeSQL: table) WHERE verification_id = \(id)")[0].int("n")
        }
    }

    @Test(arguments: Store.allCases)
    func aTestVerificationSendsNoSMSAndItsCodeIsSixZeros(_ store: Store) throws {
        guard store.isAvailable else { return }
        // Without dev mode and without an SMS relay: a live journey cannot send a code at all.
        let f = try Fixture(store, devMode: false)
        defer { f.app.close() }
        let testID = f.create(f.test)
        let liveID = f.create(f.live)
        let liveAsk = f.app.journey("POST", liveID, "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        #expect(liveAsk.status == 503 && f.app.code(liveAsk) == "sms_unavailable")
        let asked = f.app.journey("POST", testID, "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        #expect(asked.status == 202)
        // Nothing queued, nothing sent: the code is known, not delivered.
        #expect(try f.count("sms_queue", testID) == 0)
        f.app.application.runBackgroundWork()
        #expect(try f.count("sms_outbox", testID) == 0)
        // A wrong code is still wrong; 000000 signs in.
        #expect(f.app.journey("POST", testID, "/api/otp/verify", body: #"{"code":"123456"}"#).status == 401)
        let verified = f.app.journey("POST", testID, "/api/otp/verify", body: #"{"code":"000000"}"#)
        #expect(verified.status == 200)
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(testID)", headers: f.test))["status"] as? String == "in_progress")
    }

    @Test(arguments: Store.allCases)
    func liveCodesAreStillRandomAndSent(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let liveID = f.create(f.live)
        #expect(f.app.journey("POST", liveID, "/api/otp", body: #"{"mobile":"+919876543210"}"#).status == 202)
        #expect(try f.count("sms_queue", liveID) == 1)
        // 000000 is no master key for live data (one chance in a million that it is the code).
        f.app.application.runBackgroundWork()
        let outbox = f.app.request("GET", "/dev/outbox?to=%2B919876543210")
        let sent = ((f.app.json(outbox)["data"] as? [[String: Any]])?.first?["body"] as? String) ?? ""
        let code = String(sent.prefix(6))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        if code != "000000" {
            #expect(f.app.journey("POST", liveID, "/api/otp/verify", body: #"{"code":"000000"}"#).status == 401)
        }
    }

    @Test(arguments: Store.allCases)
    func testDataIsDeletedSevenDaysAfterItWasCreatedAndLiveDataStays(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let sameAge = f.create(f.test, user: "same-age")
        let old = f.create(f.test, user: "old")
        let live = f.create(f.live, user: "old")
        // Things that name the old test verification: a handoff, a session, events, a form.
        _ = f.app.journeySession(verificationID: old, auth: f.test)
        let handoff = f.app.request("POST", "/v1/verifications/\(old)/handoffs", headers: f.test, body: "{}")
        #expect(handoff.status == 201)
        #expect(try f.count("events", old) >= 2)
        // Six days and 23 hours on: nothing goes yet.
        f.clock.advance(by: 7 * 24 * 3600 - 3600)
        _ = f.create(f.test, user: "later")  // made now, so a day younger than `old` at the cut
        f.app.application.runBackgroundWork()
        #expect(f.app.request("GET", "/v1/verifications/\(old)", headers: f.test).status != 404)
        // Past seven days: the old test verification is gone with everything naming it.
        f.clock.advance(by: 3601)
        f.app.application.runBackgroundWork()
        #expect(f.app.request("GET", "/v1/verifications/\(old)", headers: f.test).status == 404)
        #expect(f.app.request("GET", "/v1/verifications/\(sameAge)", headers: f.test).status == 404)
        for table in ["events", "handoffs", "journey_sessions", "artifacts"] {
            #expect(try f.count(table, old) == 0, "\(table) still names the deleted test verification")
        }
        let remaining = try f.app.application.database.query("SELECT id FROM verifications WHERE id = \(old)")
        #expect(remaining.isEmpty)
        // The test verification made later stays until its own seven days; live data stays for good.
        #expect((f.app.json(f.app.request("GET", "/v1/verifications?user_id=later", headers: f.test))["data"] as? [Any])?.count == 1)
        #expect(f.app.request("GET", "/v1/verifications/\(live)", headers: f.live).status == 200)
        #expect(try f.count("events", live) >= 1)
        // The audit still passes: a deleted test chain is gone whole, not cut short.
        let report = try EventStore(database: f.app.application.database).audit(accountID: nil)
        #expect(report.broken == nil)
    }
}
