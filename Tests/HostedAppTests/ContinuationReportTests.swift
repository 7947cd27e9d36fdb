import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedTestSupport
import Testing

/// Issue 42 through the journey API on both stores: typed numbers, "this wasn't me" (burns,
/// flags, pauses new links, cancels where the workflow says so), the context the phone is shown,
/// and continuing in the customer's app (the event, the app handoff joining only its own
/// verification's continuation, once).
@Suite struct ContinuationReportTests {
    /// `@unchecked Sendable`: nothing in it changes after init.
    final class Fixture: JourneyFixture, @unchecked Sendable {
        let app: TestApplication
        let clock: ManualClock
        let auth: [(String, String)]
        let id: String
        let desktop: String
        let hosts: URL

        init(_ store: Store, continuation: String = "{}") throws {
            hosts = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)")
            try "127.0.0.1 hooks.test\n".write(to: hosts, atomically: true, encoding: .utf8)
            clock = ManualClock(Date())
            app = try TestApplication(store: store, clock: clock) { [hosts] in
                $0.devMode = true
                $0.webhookHostsFile = hosts.path
            }
            let created = try app.application.accounts.createAccount(name: "Acme Bank")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            let workflow = app.request("POST", "/v1/workflows", headers: auth,
                                       body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}],"continuation":\#(continuation)}"#)
            #expect(workflow.status == 201, "\(String(decoding: workflow.body, as: UTF8.self))")
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            desktop = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }

        static let windowsChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

        func create() -> Response {
            journey("POST", "/api/continuations", session: desktop, headers: [("User-Agent", Self.windowsChrome)])
        }

        func link() -> (secret: String, number: String, body: [String: Any]) {
            let created = json(create())
            let url = created["url"] as? String ?? ""
            return (String(url.split(separator: "#").last?.dropFirst("continue=".count) ?? ""), created["number"] as? String ?? "", created)
        }

        func open(_ secret: String) -> (status: Int, body: [String: Any], claim: String?) {
            let response = journey("POST", "/api/continuations/open", body: #"{"secret":"\#(secret)"}"#)
            return (response.status, json(response), response.cookie("hosted_claim"))
        }

        func match(_ number: String, claim: String?) -> Response {
            journey("POST", "/api/continuations/match", body: #"{"number":"\#(number)"}"#, cookies: claim.map { ["hosted_claim": $0] } ?? [:])
        }

        func report(claim: String?) -> Response {
            journey("POST", "/api/continuations/report", body: "{}", cookies: claim.map { ["hosted_claim": $0] } ?? [:])
        }

        func verification() -> [String: Any] { json(get("/v1/verifications/\(id)")) }

        func progress() -> [String: Any] { json(journey("GET", "/api/continuations/current", session: desktop)) }

        func events() -> [[String: Any]] {
            json(get("/v1/verifications/\(id)/events?limit=100"))["data"] as? [[String: Any]] ?? []
        }

        func close() {
            app.close()
            try? FileManager.default.removeItem(at: hosts)
        }
    }

    @Test(arguments: Store.allCases)
    func typedMatching_200_forTheRightDigits_andAWrongEntryBurnsTheLink(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, continuation: #"{"matching":"type"}"#)
        defer { f.close() }
        #expect((f.json(f.get("/v1/workflows/kyc"))["continuation"] as? [String: Any])?["matching"] as? String == "type")

        // A wrong entry burns the link exactly like a wrong pick.
        let first = f.link()
        let phone = f.open(first.secret)
        #expect(phone.status == 200)
        #expect(phone.body["matching"] as? String == "type")
        #expect(phone.body["options"] == nil, "a typed match must not offer the number")
        let wrong = String(format: "%02d", (Int(first.number)! % 89) + 10)
        let refused = f.match(wrong == first.number ? "10" : wrong, claim: phone.claim)
        #expect(refused.status == 409 && f.code(refused) == "continuation_failed")
        #expect(f.match(first.number, claim: phone.claim).status == 401)

        // The right digits sign the phone in.
        let second = f.link()
        let again = f.open(second.secret)
        #expect(f.match("1", claim: again.claim).status == 409)  // not two digits: a wrong entry too
        let third = f.link()
        let last = f.open(third.secret)
        let matched = f.match(third.number, claim: last.claim)
        #expect(matched.status == 200 && matched.cookie("hosted_session") != nil)
    }

    @Test func numbersCompareInConstantTime() {
        #expect(ConstantTime.equals("42", "42"))
        #expect(!ConstantTime.equals("42", "43"))
        #expect(!ConstantTime.equals("42", "4"))
        #expect(!ConstantTime.equals("", "4"))
        #expect(ConstantTime.equals("", ""))
        #expect(!ConstantTime.equals("42", "42\u{0}"))
    }

    @Test(arguments: Store.allCases)
    func report_200_burnsFlagsAndPausesNewLinks_withTheComputersContext(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (secret, number, _) = f.link()
        let phone = f.open(secret)
        #expect(phone.body["matching"] as? String == "choose" && (phone.body["options"] as? [String])?.count == 3)
        let context = try #require(phone.body["context"] as? [String: Any])
        #expect(context["browser"] as? String == "Chrome" && context["os"] as? String == "Windows")
        #expect(context["created_at"] is String)

        let reported = f.report(claim: phone.claim)
        #expect(reported.status == 200)
        #expect(f.json(reported)["status"] as? String == "reported")
        #expect(f.match(number, claim: phone.claim).status == 401)  // burnt
        #expect(f.report(claim: phone.claim).status == 401)  // once
        #expect(f.verification()["flags"] as? [String] == ["continuation_reported"])
        #expect(f.verification()["status"] as? String == "in_progress")
        let event = try #require(f.events().first { $0["type"] as? String == "verification.continuation_reported" })
        #expect((event["data"] as? [String: Any])?["on_report"] as? String == "flag")

        // The computer is told, and gets no new code for a minute.
        let progress = f.progress()
        #expect((progress["continuation"] as? [String: Any])?["status"] as? String == "reported")
        #expect(progress["blocked_seconds"] as? Int == 60)
        let paused = f.create()
        #expect(paused.status == 429)
        #expect(paused.headers["Retry-After"] == "60")
        f.clock.advance(by: 59)
        #expect(f.create().status == 429)
        f.clock.advance(by: 1.5)
        #expect(f.create().status == 201)
        // Nothing was texted to the number because of the report.
        f.app.application.runBackgroundWork()
        let outbox = f.json(f.app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []
        #expect(outbox.isEmpty)
    }

    @Test(arguments: Store.allCases)
    func report_401_afterAMatch(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (secret, number, _) = f.link()
        let phone = f.open(secret)
        #expect(f.match(number, claim: phone.claim).status == 200)
        #expect(f.report(claim: phone.claim).status == 401)
        #expect(f.report(claim: nil).status == 401)
        #expect(f.verification()["flags"] as? [String] == [])
    }

    @Test(arguments: Store.allCases)
    func report_withOnReportCancel_cancelsTheVerification(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, continuation: #"{"on_report":"cancel"}"#)
        defer { f.close() }
        let phone = f.open(f.link().secret)
        #expect(f.report(claim: phone.claim).status == 200)
        let after = f.verification()
        #expect(after["status"] as? String == "canceled")
        #expect(after["flags"] as? [String] == ["continuation_reported"])
        #expect(f.events().suffix(2).compactMap { $0["type"] as? String }
            == ["verification.continuation_reported", "verification.canceled"])
    }

    @Test(arguments: Store.allCases)
    func workflow_422_forAnUnknownContinuationOption(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        for continuation in [#"{"matching":"guess"}"#, #"{"on_report":"delete"}"#, #"{"matching":"type","colour":"red"}"#, #""type""#] {
            let refused = f.post("/v1/workflows", #"{"key":"k","name":"K","steps":[{"type":"profile"}],"continuation":\#(continuation)}"#)
            #expect(refused.status == 422, "\(continuation)")
        }
    }

    @Test(arguments: Store.allCases)
    func app_202_recordsTheRequest_andTheAppHandoffJoinsTheContinuationOnce(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        // Without a subscribed endpoint the computer is not offered the app.
        #expect(f.link().body["app"] is NSNull)
        #expect(f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/hook","events":["verification.continuation_requested"]}"#).status == 201)
        f.clock.advance(by: 1)  // the computer follows its newest link: not two made in one millisecond
        let (secret, number, body) = f.link()
        #expect((body["app"] as? [String: Any])?["name"] as? String == "Acme Bank")

        // The computer asks; the customer's backend hears it by webhook (the event), once.
        let requested = f.journey("POST", "/api/continuations/app", body: "{}", session: f.desktop)
        #expect(requested.status == 202)
        #expect(f.journey("POST", "/api/continuations/app", body: "{}", session: f.desktop).status == 202)  // once: no second event
        let events = f.events().filter { $0["type"] as? String == "verification.continuation_requested" }
        #expect(events.count == 1)
        let data = try #require(events.first?["data"] as? [String: Any])
        #expect(Set(data.keys) == ["continuation_id"])
        #expect(!String(describing: data).contains(number) || (data["continuation_id"] as? String)?.contains(number) == true)

        // The customer's backend mints the app's handoff; 20 parallel uses: one device opens it.
        let minted = f.json(f.post("/v1/verifications/\(f.id)/handoffs", #"{"continuation":true}"#))
        let url = try #require(minted["url"] as? String)
        let handoff = String(url.split(separator: "#")[1].dropFirst("handoff=".count))
        let results = Collected<(status: Int, answer: String?, options: [String], claim: String?)>()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let response = f.journey("POST", "/api/session", body: #"{"handoff":"\#(handoff)"}"#)
            let body = f.json(response)
            results.append((response.status, body["status"] as? String, body["options"] as? [String] ?? [], response.cookie("hosted_claim")))
        }
        let winners = results.all.filter { $0.status == 200 }
        #expect(winners.count == 1)
        #expect(results.all.filter { $0.status == 401 }.count == 19)
        let winner = try #require(winners.first)
        #expect(winner.answer == "match" && winner.options.contains(number))
        #expect(results.all.allSatisfy { $0.answer != "signed_in" })
        // The QR link stops working; the number still decides.
        #expect(f.open(secret).status == 401)
        #expect(f.match(number, claim: winner.claim).status == 200)
        #expect((f.progress()["continuation"] as? [String: Any])?["status"] as? String == "matched")
        // With nothing live, the app cannot join (and the computer cannot ask).
        let none = f.post("/v1/verifications/\(f.id)/handoffs", #"{"continuation":true}"#)
        #expect(none.status == 409 && f.code(none) == "no_continuation_requested")
        #expect(f.journey("POST", "/api/continuations/app", body: "{}", session: f.desktop).status == 409)
    }

    /// An app handoff of one verification never opens another's continuation, and another
    /// account cannot mint one.
    @Test(arguments: Store.allCases)
    func appHandoff_isBoundToItsOwnVerification(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        _ = f.link()
        let otherID = f.json(f.post("/v1/verifications", #"{"user_id":"u2","workflow":"kyc","mobile":"+919876543211"}"#))["id"] as? String ?? ""
        let otherDesktop = f.app.journeySession(verificationID: otherID, auth: f.auth)
        #expect(f.app.journey("POST", otherID, "/api/continuations", session: otherDesktop).status == 201)
        let minted = f.json(f.post("/v1/verifications/\(f.id)/handoffs", #"{"continuation":true}"#))
        let handoff = String((minted["url"] as? String ?? "").split(separator: "#").last?.dropFirst("handoff=".count) ?? "")
        let elsewhere = f.app.journey("POST", otherID, "/api/session", body: Array(#"{"handoff":"\#(handoff)"}"#.utf8))
        #expect(elsewhere.status == 401)
        #expect(f.journey("POST", "/api/session", body: #"{"handoff":"\#(handoff)"}"#).status == 200)

        let stranger = try f.app.application.accounts.createAccount(name: "Other")
        let refused = f.app.request("POST", "/v1/verifications/\(f.id)/handoffs", headers: [("Authorization", "Bearer \(stranger.secret.value)")],
                                    body: #"{"continuation":true}"#)
        #expect(refused.status == 404)
    }

    @Test func userAgents_areSummedUpCoarsely() {
        let table: [(String?, String?, String?)] = [
            (Fixture.windowsChrome, "Chrome", "Windows"),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15", "Safari", "macOS"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0", "Edge", "Windows"),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "Firefox", "Linux"),
            ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36", "Chrome", "Android"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148 Safari/604.1", "Chrome", "iOS"),
            ("curl/8.0", nil, nil),
            (nil, nil, nil),
        ]
        for (agent, browser, os) in table {
            let summary = UserAgentSummary(userAgent: agent)
            #expect(summary.browser == browser && summary.os == os, "\(agent ?? "nil")")
        }
        #expect(UserAgentSummary(userAgent: String(repeating: "x", count: 100_000) + "Chrome/1").browser == nil)
    }
}
