import Dispatch
import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// Journey analytics on both stores (issue 43): each signal counted once per event, also under
/// 20 parallel requests; the funnel's arithmetic on a fixture; UTC days and date ranges;
/// tenancy; pruning after 400 days with the injected clock; no personal value in the counts.
@Suite struct JourneyAnalyticsTests {
    static let phone = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
    static let webview = "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

    /// `@unchecked Sendable`: nothing in it changes after init but through the app and clock, which are thread-safe.
    final class Fixture: AccountFixture, @unchecked Sendable {
        let app: TestApplication
        let clock: ManualClock
        let auth: [(String, String)]

        init(_ store: Store, at start: Date = Date(), name: String = "Acme") throws {
            clock = ManualClock(start)
            app = try TestApplication(store: store, clock: clock)
            auth = try Self.account(app, name: name)
        }

        static func account(_ app: TestApplication, name: String) throws -> [(String, String)] {
            let created = try app.application.accounts.createAccount(name: name)
            let auth = [("Authorization", "Bearer \(created.secret.value)")]
            let workflow = app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"profile","id":"about"},{"type":"selfie"}]}
                """#)
            #expect(workflow.status == 201)
            return auth
        }

        /// A new verification of `kyc` for `user`.
        func create(_ user: String = "u1", mobile: String = "+919876543210", auth: [(String, String)]? = nil) -> String {
            app.json(app.request("POST", "/v1/verifications", headers: auth ?? self.auth,
                                 body: #"{"user_id":"\#(user)","workflow":"kyc","mobile":"\#(mobile)"}"#))["id"] as? String ?? ""
        }

        func open(_ id: String, agent: String = JourneyAnalyticsTests.phone) -> Int {
            app.request("GET", "/j/\(id)", headers: [("User-Agent", agent)]).status
        }

        func signIn(_ id: String, auth: [(String, String)]? = nil) -> String {
            app.journeySession(verificationID: id, auth: auth ?? self.auth)
        }

        func signal(_ id: String, _ session: String, _ body: String, agent: String = JourneyAnalyticsTests.phone) -> Response {
            app.journey("POST", id, "/api/signals", body: body, session: session, headers: [("User-Agent", agent)])
        }

        func profile(_ id: String, _ session: String, name: String = "Asha Verma") -> Int {
            app.journey("POST", id, "/api/steps/about/profile", body: #"{"full_name":"\#(name)","date_of_birth":"1990-01-01"}"#,
                        session: session).status
        }

        func funnel(_ query: String = "", auth: [(String, String)]? = nil) -> [String: Any] {
            app.json(app.request("GET", "/v1/analytics/funnel\(query)", headers: auth ?? self.auth))
        }

        func rows(_ sql: SQL) throws -> [Row] { try app.application.database.query(sql) }

        /// Sum of `journey_counts.count` for one signal.
        func counted(_ signal: String, step: String = "") throws -> Int64 {
            try rows("SELECT COALESCE(SUM(count), 0) AS n FROM journey_counts WHERE signal = \(signal) AND step = \(step)")[0].int("n")
        }

        func close() { app.close() }
    }

    static func stage(_ funnel: [String: Any], _ name: String) -> (count: Int, conversion: Double) {
        let stage = (funnel["stages"] as? [[String: Any]] ?? []).first { $0["stage"] as? String == name } ?? [:]
        return (stage["count"] as? Int ?? -1, (stage["conversion"] as? NSNumber)?.doubleValue ?? -1)
    }

    static func step(_ funnel: [String: Any], _ id: String) -> [String: Any] {
        (funnel["steps"] as? [[String: Any]] ?? []).first { $0["step"] as? String == id } ?? [:]
    }

    @Test(arguments: Store.allCases)
    func signals_areCountedOncePerEvent(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create()
        #expect(f.open(id) == 200)
        #expect(f.open(id) == 200)  // a reload: the same visit
        #expect(f.open(id, agent: Self.desktop) == 200)  // another device class: another visit
        #expect(f.open("ver_aaaaaaaaaaaaaaaaaaaaaaaaaa") == 200)  // an unknown id counts nothing
        let session = f.signIn(id)
        for _ in 0..<3 { #expect(f.signal(id, session, #"{"signal":"step_viewed","step":"about"}"#).status == 202) }
        #expect(f.signal(id, session, #"{"signal":"camera_unavailable"}"#).status == 202)
        #expect(f.signal(id, session, #"{"signal":"continued_elsewhere"}"#).status == 202)
        #expect(f.profile(id, session) == 200)
        // What a page cannot send, and steps the verification does not have.
        #expect(f.signal(id, session, #"{"signal":"submitted"}"#).status == 422)
        #expect(f.signal(id, session, #"{"signal":"step_viewed","step":"nope"}"#).status == 422)
        #expect(f.signal(id, session, #"{"signal":"step_viewed"}"#).status == 422)
        #expect(f.signal(id, "", #"{"signal":"step_viewed","step":"about"}"#).status == 401)
        _ = f.funnel()  // waits for the recording queue
        #expect(try f.counted("opened") == 2)
        #expect(try f.counted("signed_in") == 1)
        #expect(try f.counted("step_viewed", step: "about") == 3)
        #expect(try f.counted("camera_unavailable") == 1)
        #expect(try f.counted("continued_elsewhere") == 1)
        #expect(try f.counted("step_completed", step: "about") == 1)
        let devices = try f.rows("SELECT device_class, SUM(count) AS n FROM journey_counts WHERE signal = 'opened' GROUP BY device_class")
        #expect(Set(try devices.map { try $0.string("device_class") }) == ["phone", "desktop"])
        // One first view per verification, step and device class.
        #expect(try f.rows("SELECT verification_id FROM journey_firsts WHERE step = 'about'").count == 1)
        // The metrics: stages by workflow.
        let text = f.app.application.metrics.render()
        #expect(text.contains(#"hosted_journey_stage_total{workflow="kyc",stage="opened"} 2"#))
        #expect(text.contains(#"hosted_journey_stage_total{workflow="kyc",stage="signed_in"} 1"#))
    }

    @Test(arguments: Store.allCases)
    func signals_20ParallelRequests_loseNoUpdate(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create()
        let session = f.signIn(id)
        let statuses = Mutex20()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            statuses.add(f.signal(id, session, #"{"signal":"step_viewed","step":"selfie"}"#).status)
            statuses.add(f.open(id))
        }
        #expect(statuses.all.allSatisfy { $0 == 200 || $0 == 202 } && statuses.all.count == 40)
        _ = f.funnel()
        #expect(try f.counted("step_viewed", step: "selfie") == 20)
        #expect(try f.counted("opened") == 1)
        #expect(try f.rows("SELECT at FROM journey_firsts WHERE step = 'selfie'").count == 1)
        // The upsert itself, from 20 threads at once without the queue: 20.
        let analytics = AnalyticsStore(database: f.app.application.database)
        let now = f.clock.now()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            #expect(throws: Never.self) {
                try analytics.count(.init(.cameraUnavailable, deviceClass: .phone), verificationID: id, at: now)
            }
        }
        #expect(try f.counted("camera_unavailable") == 20)
    }

    /// Four verifications: one that goes all the way (10 s on the profile), one submitted
    /// (30 s), one that views the profile and stops, one never opened.
    @Test(arguments: Store.allCases)
    func funnel_200_countsStagesConversionsAndMedians(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let ids = (1...4).map { f.create("user-\($0)") }
        var sessions: [String] = []
        for (index, id) in ids.prefix(3).enumerated() {
            #expect(f.open(id, agent: index == 2 ? Self.webview : Self.phone) == 200)
            sessions.append(f.signIn(id))
            #expect(f.signal(id, sessions[index], #"{"signal":"step_viewed","step":"about"}"#).status == 202)
        }
        _ = f.funnel()  // the first views are written before the clock moves
        f.clock.advance(by: 10)
        #expect(f.profile(ids[0], sessions[0]) == 200)
        f.clock.advance(by: 20)
        #expect(f.profile(ids[1], sessions[1]) == 200)
        let selfie = try CaptureChecksAPITests.fixture("portrait-dark.jpg")
        for index in 0..<2 {
            let upload = f.app.journey("POST", ids[index], "/api/steps/selfie/images", body: selfie, contentType: "image/jpeg",
                                       session: sessions[index])
            #expect(upload.status == 201)
            let artifact = f.app.json(upload)["artifact_id"] as? String ?? ""
            // A failed photo replaced (a retake), then the same photo kept.
            #expect(f.app.journey("DELETE", ids[index], "/api/steps/selfie/images/\(artifact)", session: sessions[index]).status == 204)
            #expect(f.app.journey("POST", ids[index], "/api/steps/selfie/images", body: selfie, contentType: "image/jpeg",
                                  session: sessions[index]).status == 201)
            #expect(f.app.journey("POST", ids[index], "/api/steps/selfie/complete", body: "", session: sessions[index]).status == 200)
            #expect(f.app.journey("POST", ids[index], "/api/submit", session: sessions[index], headers: [("User-Agent", Self.phone)]).status == 200)
        }
        #expect(f.post("/v1/verifications/\(ids[0])/decision", #"{"decision":"approved"}"#).status == 200)

        let funnel = f.funnel()
        #expect(Self.stage(funnel, "created") == (4, 1))
        #expect(Self.stage(funnel, "opened") == (3, 0.75))
        #expect(Self.stage(funnel, "signed_in") == (3, 0.75))
        #expect(Self.stage(funnel, "submitted") == (2, 0.5))
        #expect(Self.stage(funnel, "decided") == (1, 0.25))
        let about = Self.step(funnel, "about")
        #expect(about["viewed"] as? Int == 3 && about["completed"] as? Int == 2)
        #expect((about["median_seconds"] as? NSNumber)?.doubleValue == 20)  // (10 + 30) / 2
        let selfieStep = Self.step(funnel, "selfie")
        #expect(selfieStep["viewed"] as? Int == 0 && selfieStep["completed"] as? Int == 2 && selfieStep["median_seconds"] is NSNull)
        let retakes = funnel["retakes"] as? [[String: Any]] ?? []
        #expect(retakes.contains { $0["step"] as? String == "selfie" && $0["reason"] as? String == "too_dark" && $0["count"] as? Int == 2 })
        let devices = funnel["devices"] as? [[String: Any]] ?? []
        #expect(devices.contains { $0["class"] as? String == "phone" && $0["opened"] as? Int == 2 && $0["submitted"] as? Int == 2 })
        #expect(devices.contains { $0["class"] as? String == "android_webview" && $0["opened"] as? Int == 1 && $0["submitted"] as? Int == 0 })
        #expect(f.app.application.metrics.render().contains(#"hosted_capture_retakes_total{step="selfie",reason="too_dark"} 2"#))
        // One workflow, or one that does not exist (nothing, not an error).
        #expect(Self.stage(f.funnel("?workflow=kyc"), "created").count == 4)
        #expect(Self.stage(f.funnel("?workflow=other"), "created") == (0, 0))
        try expectPromtoolAccepts(f.app.application.metrics.render())
    }

    /// Days are UTC: 23:59:59.999Z is one day, 00:00Z the next, whatever the server's zone.
    @Test(arguments: Store.allCases)
    func funnel_rangeIsUTCDaysInclusive_andValidated(_ store: Store) throws {
        guard store.isAvailable else { return }
        // 2026-03-31T23:59:59Z: already April 1st in India (UTC+05:30), still March 31st in UTC.
        let lastSecond = Date(timeIntervalSince1970: 1_775_001_599)
        let f = try Fixture(store, at: lastSecond)
        defer { f.close() }
        _ = f.create("late")
        f.clock.advance(by: 1)
        _ = f.create("early", mobile: "+919876543211")
        #expect(Self.stage(f.funnel("?from=2026-03-31&to=2026-03-31"), "created").count == 1)
        #expect(Self.stage(f.funnel("?from=2026-04-01&to=2026-04-01"), "created").count == 1)
        #expect(Self.stage(f.funnel("?from=2026-03-01&to=2026-04-30"), "created").count == 2)
        // The default: the last 30 days up to today (UTC).
        let defaults = f.funnel()
        #expect(defaults["to"] as? String == "2026-04-01" && defaults["from"] as? String == "2026-03-03")
        #expect(Self.stage(defaults, "created").count == 2)
        #expect(AnalyticsDay(parsing: "2026-04-01")?.text == "2026-04-01")
        for bad in ["?from=2026-02-30", "?to=2026-4-1", "?from=2026-04-02&to=2026-04-01", "?from=2025-01-01&to=2026-04-01",
                    "?since=2026-01-01", "?from=2026-04-01T00:00:00Z"] {
            let response = f.get("/v1/analytics/funnel\(bad)")
            #expect(response.status == 422, "\(bad)")
            #expect(response.headers["Content-Type"] == "application/problem+json", "\(bad)")
            #expect(!((f.json(response)["errors"] as? [[String: Any]]) ?? []).isEmpty, "\(bad)")
        }
        // At most 400 days apart: exactly 400 is allowed.
        #expect(f.get("/v1/analytics/funnel?from=2025-02-25&to=2026-04-01").status == 200)
        #expect(f.app.request("GET", "/v1/analytics/funnel").status == 401)
    }

    @Test(arguments: Store.allCases)
    func funnel_showsOnlyTheCallersAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let other = try Fixture.account(f.app, name: "Other")
        let id = f.create()
        #expect(f.open(id) == 200)
        let session = f.signIn(id)
        #expect(f.signal(id, session, #"{"signal":"step_viewed","step":"about"}"#).status == 202)
        #expect(Self.stage(f.funnel(), "opened").count == 1)
        let theirs = f.funnel(auth: other)
        #expect(Self.stage(theirs, "created") == (0, 0) && Self.stage(theirs, "opened").count == 0)
        #expect((theirs["steps"] as? [Any])?.isEmpty == true && (theirs["devices"] as? [Any])?.isEmpty == true)
        // Another account's session cannot send signals to this journey.
        let theirID = f.create("u2", auth: other)
        let theirSession = f.signIn(theirID, auth: other)
        #expect(f.signal(id, theirSession, #"{"signal":"step_viewed","step":"about"}"#).status == 401)
    }

    @Test(arguments: Store.allCases)
    func counts_arePrunedAfter400Days_byTheSweeper(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create()
        #expect(f.open(id) == 200)
        let session = f.signIn(id)
        #expect(f.signal(id, session, #"{"signal":"step_viewed","step":"about"}"#).status == 202)
        _ = f.funnel()
        let counted = try f.rows("SELECT day FROM journey_counts").count
        #expect(counted >= 3)
        f.clock.advance(by: 399 * 86_400)
        f.app.application.runBackgroundWork()
        #expect(try f.rows("SELECT day FROM journey_counts").count == counted)
        #expect(try f.rows("SELECT at FROM journey_firsts").count == 2)
        f.clock.advance(by: 2 * 86_400 + 1)
        f.app.application.runBackgroundWork()
        #expect(try f.rows("SELECT day FROM journey_counts").isEmpty)
        #expect(try f.rows("SELECT at FROM journey_firsts").isEmpty)
    }

    /// Journeys with distinctive ids, numbers and names: none of them, nor the verification's
    /// id or the User-Agent, is anywhere in the counts.
    @Test(arguments: Store.allCases)
    func counts_holdNoPersonalValue(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        var ids: [String] = []
        for index in 0..<3 {
            let id = f.create("zq-user-7731-\(index)", mobile: "+91981234567\(index)")
            ids.append(id)
            #expect(f.open(id, agent: Self.webview) == 200)
            let session = f.signIn(id)
            #expect(f.signal(id, session, #"{"signal":"step_viewed","step":"about"}"#, agent: Self.webview).status == 202)
            #expect(f.profile(id, session, name: "Zebulon Quixote") == 200)
        }
        _ = f.funnel()
        let rows = try f.rows("SELECT * FROM journey_counts")
        #expect(!rows.isEmpty)
        let text = rows.flatMap(\.values).map { "\($0)" }.joined(separator: "|")
        for secret in ["zq-user-7731", "981234567", "9812345670", "Zebulon", "Quixote", "Pixel 8", "Mozilla"] + ids {
            #expect(!text.contains(secret), "\(secret) is in journey_counts")
        }
        let firsts = try f.rows("SELECT * FROM journey_firsts").flatMap(\.values).map { "\($0)" }.joined(separator: "|")
        for secret in ["zq-user-7731", "981234567", "Zebulon", "Mozilla"] { #expect(!firsts.contains(secret)) }
    }

    @Test func deviceClasses_fromTheUserAgentTable() {
        let iPhoneSafari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
        let iPhoneApp = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
        let instagram = iPhoneSafari + " Instagram 339.0.3.12.91"
        #expect(DeviceClass(userAgent: Self.desktop) == .desktop)
        #expect(DeviceClass(userAgent: nil) == .desktop)
        #expect(DeviceClass(userAgent: Self.phone) == .phone)
        #expect(DeviceClass(userAgent: iPhoneSafari) == .phone)
        #expect(DeviceClass(userAgent: iPhoneApp) == .iosWebview)
        #expect(DeviceClass(userAgent: instagram) == .iosWebview)
        #expect(DeviceClass(userAgent: Self.webview) == .androidWebview)
        #expect(DeviceClass(userAgent: Self.phone, referer: "android-app://com.acme.bank/") == .customTab)
        #expect(JourneyFunnel.median([]) == nil && JourneyFunnel.median([3, 1, 2]) == 2 && JourneyFunnel.median([1, 2, 3, 10]) == 2.5)
    }

    func expectPromtoolAccepts(_ text: String) throws {
        let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let promtool else {
            if TestBackend.postgresRequired { Issue.record("promtool is missing: install Debian's prometheus (scripts/test.sh does)") }
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("analytics-metrics-\(UUID().uuidString).txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Subprocess.shell("\(promtool) check metrics < '\(file.path)'") == 0)
    }
}

/// Statuses collected from parallel requests.
final class Mutex20: @unchecked Sendable {  // `@unchecked`: `values` only under `lock`.
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.lock(); values.append(value); lock.unlock() }
    var all: [Int] { lock.lock(); defer { lock.unlock() }; return values }
}
