import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// Continuing on another device through the journey API, on SQLite and PostgreSQL: one device
/// wins a link, its one pick decides, a wrong pick burns, links expire, the first device follows.
@Suite struct ContinuationTests {
    /// `@unchecked Sendable`: nothing in it changes after init.
    final class Fixture: JourneyFixture, @unchecked Sendable {
        let app: TestApplication
        let clock: ManualClock
        let auth: [(String, String)]
        let id: String
        let desktop: String

        init(_ store: Store, devMode: Bool = false) throws {
            clock = ManualClock(Date())
            app = try TestApplication(store: store, clock: clock) { $0.devMode = devMode }
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            _ = app.request("POST", "/v1/return_urls", headers: auth, body: #"{"url":"https://app.example.com/done"}"#)
            #expect(app.request("POST", "/v1/workflows", headers: auth,
                                body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}]}"#).status == 201)
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210","return_url":"https://app.example.com/done"}"#))["id"] as? String ?? ""
            desktop = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }

        /// A new link from the desktop: (secret, number).
        func link() -> (secret: String, number: String) {
            let created = json(journey("POST", "/api/continuations", session: desktop))
            let url = created["url"] as? String ?? ""
            return (String(url.split(separator: "#").last?.dropFirst("continue=".count) ?? ""), created["number"] as? String ?? "")
        }

        /// Opens a link as a phone: its options and claim cookie, or the status.
        func open(_ secret: String) -> (status: Int, options: [String], claim: String?) {
            let response = journey("POST", "/api/continuations/open", body: #"{"secret":"\#(secret)"}"#)
            return (response.status, json(response)["options"] as? [String] ?? [], response.cookie("hosted_claim"))
        }

        func pick(_ number: String, claim: String?) -> Response {
            journey("POST", "/api/continuations/match", body: #"{"number":"\#(number)"}"#, cookies: claim.map { ["hosted_claim": $0] } ?? [:])
        }

        func progress() -> [String: Any] { json(journey("GET", "/api/continuations/current", session: desktop)) }
        func eventTypes() -> [String] {
            (json(get("/v1/verifications/\(id)/events?limit=100"))["data"] as? [[String: Any]] ?? [])
                .compactMap { $0["type"] as? String }
        }
        func close() { app.close() }
    }

    @Test(arguments: Store.allCases)
    func theRightPickSignsThePhoneInAndTheDesktopFollowsToTheReturnURL(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let created = f.app.json(f.journey("POST", "/api/continuations", session: f.desktop))
        let url = try #require(created["url"] as? String)
        #expect(url.hasPrefix("https://verify.example.com/j/\(f.id)#continue="))
        let number = try #require(created["number"] as? String)
        #expect(number.count == 2 && (10...99).contains(Int(number) ?? 0))
        #expect((created["qr_svg"] as? String)?.hasPrefix("<svg") == true)
        let secret = String(url.split(separator: "#")[1].dropFirst("continue=".count))
        #expect(BearerSecret(presented: secret) != nil)  // 256 bits

        let phone = f.open(secret)
        #expect(phone.status == 200)
        #expect(phone.options.count == 3 && Set(phone.options).count == 3 && phone.options.contains(number))
        let matched = f.pick(number, claim: phone.claim)
        #expect(matched.status == 200)
        let session = try #require(matched.cookie("hosted_session"))
        #expect(f.progress()["continuation"].flatMap { ($0 as? [String: Any])?["status"] as? String } == "matched")

        // The phone works the journey and submits; it is sent back to the desktop, not the return URL.
        let state = f.app.json(f.journey("GET", "/api/state", session: session))
        #expect(state["continued"] as? Bool == true && state["return_url"] == nil)
        #expect(f.journey("POST", "/api/steps/profile/profile", body: #"{"full_name":"Asha Verma","date_of_birth":"1990-04-01"}"#,
                          session: session).status == 200)
        let submitted = f.app.json(f.journey("POST", "/api/submit", session: session))
        #expect(submitted["redirect_url"] is NSNull)
        // The desktop's follow now says where to go.
        let progress = f.progress()
        #expect(progress["status"] as? String == "submitted")
        #expect((progress["redirect_url"] as? String)?
            .hasPrefix("https://app.example.com/done?verification_id=\(f.id)&status=submitted#hosted_result=") == true)
        #expect((progress["steps"] as? [[String: Any]])?.first?["status"] as? String == "completed")
        #expect(f.eventTypes() == ["verification.created", "verification.handoff_created", "verification.signed_in",
                                   "verification.continuation_created", "verification.continuation_matched",
                                   "verification.signed_in", "verification.step_completed", "verification.submitted"])
        let signIns = (f.json(f.get("/v1/events?type=verification.signed_in"))["data"] as? [[String: Any]] ?? [])
        #expect(signIns.compactMap { ($0["data"] as? [String: Any])?["method"] as? String } == ["handoff", "continuation"])
    }

    @Test(arguments: Store.allCases)
    func thirtyParallelOpensOneDeviceWins(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (secret, number) = f.link()
        let results = Collected<(Int, String?)>()
        DispatchQueue.concurrentPerform(iterations: 30) { _ in
            let opened = f.open(secret)
            results.append((opened.status, opened.claim))
        }
        #expect(results.all.filter { $0.0 == 200 }.count == 1)
        #expect(results.all.filter { $0.0 == 401 }.count == 29)
        // Only the winner's claim can pick.
        #expect(f.pick(number, claim: "not-a-claim").status == 401)
        let winner = results.all.first { $0.0 == 200 }?.1
        // Parallel picks with the one claim: one answer counts.
        let picks = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 10) { _ in picks.append(f.pick(number, claim: winner).status) }
        #expect(picks.all.filter { $0 == 200 }.count == 1)
        #expect(f.eventTypes().filter { $0 == "verification.continuation_matched" }.count == 1)
    }

    @Test(arguments: Store.allCases)
    func aWrongPickBurnsTheLinkAndANewLinkReplacesTheOld(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (secret, number) = f.link()
        let phone = f.open(secret)
        let wrong = try #require(phone.options.first { $0 != number })
        let burned = f.pick(wrong, claim: phone.claim)
        #expect(burned.status == 409)
        #expect(f.app.json(burned)["code"] as? String == "continuation_failed")
        #expect(f.pick(number, claim: phone.claim).status == 401)  // the right number no longer helps
        #expect(f.open(secret).status == 401)
        #expect(f.progress()["continuation"].flatMap { ($0 as? [String: Any])?["status"] as? String } == "failed")
        #expect(f.eventTypes().suffix(2) == ["verification.continuation_created", "verification.continuation_failed"])

        // A new link revokes the one before it, opened or not.
        let first = f.link()
        let opened = f.open(first.secret)
        let second = f.link()
        #expect(f.pick(first.number, claim: opened.claim).status == 401)
        #expect(f.open(first.secret).status == 401)
        // "Continue here instead" ends the link that is not used yet.
        #expect(f.journey("DELETE", "/api/continuations/current", session: f.desktop).status == 204)
        #expect(f.open(second.secret).status == 401)
        // A pick that is not two digits is a wrong pick, never a crash.
        let third = f.link()
        let junk = f.open(third.secret)
        #expect(f.pick("1e1", claim: junk.claim).status == 409)
        #expect(f.journey("POST", "/api/continuations/match", body: #"{"number":12}"#).status == 422)
    }

    @Test(arguments: Store.allCases)
    func linksExpireAfterTenMinutes(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (secret, _) = f.link()
        f.clock.advance(by: 601)
        #expect(f.open(secret).status == 401)
        #expect(f.progress()["continuation"].flatMap { ($0 as? [String: Any])?["status"] as? String } == "expired")
        let (fresh, number) = f.link()
        let phone = f.open(fresh)
        f.clock.advance(by: 601)
        #expect(f.pick(number, claim: phone.claim).status == 401)
    }

    /// An expiry writes nothing, so nothing wakes the desktop's long-poll: it must end by itself
    /// when the link expires, not only after the `wait` it asked for.
    @Test(arguments: Store.allCases)
    func theDesktopsLongPollEndsWhenTheLinkExpires(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        _ = f.link()
        f.clock.advance(by: ContinuationRules.lifetime - 2)  // two seconds left
        let tag = try #require(f.progress()["tag"] as? String)
        let path = "/j/\(f.id)/api/continuations/current?wait=20&since=\(tag)"
        let headers = [("Origin", TestApplication.origin), ("Cookie", "hosted_session=\(f.desktop)")]
        let deferred = try #require(f.app.reply("GET", path, headers: headers).deferred)
        let answered = Answer()
        let started = Date()
        deferred.start { answered.set($0) }
        // The test's clock stands still, so the answer is the same progress, but it comes when the
        // link's two seconds are up (where a real clock shows it expired), not after 20.
        let response = try #require(answered.wait(seconds: 10), "the long-poll must end when the link expires")
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed > 1.5 && elapsed < 6)
        #expect(f.app.json(response)["tag"] as? String == tag)
        f.clock.advance(by: 3)
        let expired = f.progress()
        #expect(expired["tag"] as? String != tag)
        #expect((expired["continuation"] as? [String: Any])?["status"] as? String == "expired")
    }

    @Test(arguments: Store.allCases)
    func onlyASignedInDesktopMakesLinksAndNoSecretIsKept(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.journey("POST", "/api/continuations").status == 401)
        #expect(f.journey("POST", "/api/continuations", session: f.desktop).status == 201)
        #expect(f.journey("POST", "/api/continuations", session: f.desktop, origin: "https://evil.example").status == 403)
        let (secret, number) = f.link()
        // Outside dev mode without an SMS relay, texting is refused rather than silently dropped.
        let sms = f.journey("POST", "/api/continuations/sms", body: #"{"secret":"\#(secret)"}"#, session: f.desktop)
        #expect(sms.status == 503)
        #expect(f.app.json(sms)["code"] as? String == "sms_unavailable")
        #expect(f.journey("POST", "/api/continuations/sms", body: #"{"secret":"\#(String(repeating: "A", count: 43))"}"#,
                          session: f.desktop).status == 401)
        let phone = f.open(secret)
        let matched = f.pick(number, claim: phone.claim)
        let session = try #require(matched.cookie("hosted_session"))
        // Secret, claim and session token are nowhere in the store: only their hashes (the texted
        // link is sealed in the SMS queue).
        let stored = try f.app.storedBytes()
        #expect(!stored.contains(text: secret))
        #expect(!stored.contains(text: phone.claim ?? "-"))
        #expect(!stored.contains(text: session))
    }

    @Test(arguments: Store.allCases)
    func theLinkIsTextedToTheVerificationsOwnNumber(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, devMode: true)
        defer { f.close() }
        let (secret, _) = f.link()
        let body = #"{"secret":"\#(secret)"}"#
        let statuses = (0..<4).map { _ in f.journey("POST", "/api/continuations/sms", body: body, session: f.desktop).status }
        #expect(statuses == [202, 202, 202, 429])
        f.app.application.runBackgroundWork()
        let outbox = f.app.json(f.app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []
        #expect(outbox.count == 3)
        #expect((outbox.first?["body"] as? String)?.hasSuffix("/j/\(f.id)#continue=\(secret)") == true)
    }

    @Test func numbersAndOptionsAreUniformAndDistinct() {
        let random = SecureRandom()
        var seen = Set<String>()
        for _ in 0..<2000 {
            let number = ContinuationRules.number(using: random)
            #expect((10...99).contains(Int(number) ?? 0))
            seen.insert(number)
            let options = ContinuationRules.options(including: number, using: random)
            #expect(options.count == 3 && Set(options).count == 3 && options.contains(number))
        }
        #expect(seen.count == 90)
        #expect(ContinuationRules.presentedNumber("07") == "07")
        #expect(ContinuationRules.presentedNumber("7") == nil)
        #expect(ContinuationRules.presentedNumber("٠٧") == nil)
    }
}
