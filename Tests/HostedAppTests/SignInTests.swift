import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// Handoffs, journey sessions and SMS codes through the application, on SQLite and PostgreSQL.
@Suite struct SignInTests {

    /// An app (dev mode, https public URL) with one account, a workflow and one verification.
    struct Fixture: JourneyFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let clock: ManualClock
        let verificationID: String

        init(_ store: Store, devMode: Bool = true, trustedProxies: [String] = []) throws {
            clock = ManualClock()
            app = try TestApplication(store: store, clock: clock) {
                $0.devMode = devMode
                $0.trustedProxies = trustedProxies
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            _ = app.request("POST", "/v1/return_urls", headers: auth, body: #"{"url":"https://app.example.com/done"}"#)
            _ = app.request("POST", "/v1/workflows", headers: auth, body: #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#)
            let verification = app.request("POST", "/v1/verifications", headers: auth,
                                            body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#)
            verificationID = app.json(verification)["id"] as? String ?? ""
        }

        func mint(_ body: String = "{}") -> Response {
            post("/v1/verifications/\(verificationID)/handoffs", body)
        }

        /// The secret from a freshly minted handoff's URL fragment.
        func secret() throws -> String {
            try #require(app.handoffSecret(verificationID: verificationID, auth: auth))
        }

        func exchange(_ secret: String, origin: String? = TestApplication.origin) -> Response {
            journey("POST", "/api/session", body: #"{"handoff":"\#(secret)"}"#, origin: origin)
        }

        func status() -> String? { json(get("/v1/verifications/\(verificationID)"))["status"] as? String }

        /// The dev outbox once the queued messages are sent (the background work, run here).
        func outbox() -> [String] {
            app.application.runBackgroundWork()
            return (app.json(app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []).compactMap { $0["body"] as? String }
        }

        func latestCode() throws -> String { String(try #require(outbox().first).prefix(6)) }

        func close() { app.close() }
    }

    @Test(arguments: Store.allCases)
    func createHandoff_201_urlCarriesTheSecretInTheFragmentOnly(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let response = f.mint()
        #expect(response.status == 201)
        let body = f.app.json(response)
        #expect(body["object"] as? String == "handoff")
        #expect((body["id"] as? String)?.hasPrefix("hnd_") == true)
        #expect(body["expires_in_seconds"] as? Int == 300)
        #expect(body["verification_id"] as? String == f.verificationID)
        let url = try #require(body["url"] as? String)
        #expect(url.hasPrefix("https://verify.example.com/j/\(f.verificationID)#handoff="))
        let secret = String(url.split(separator: "#")[1].dropFirst("handoff=".count))
        #expect(secret.count == 43)
        #expect(Base64URL.decode(secret)?.count == 32)
        // Stored only as its SHA-256.
        let rows = try f.app.application.database.query("SELECT * FROM handoffs")
        #expect(try rows[0].string("secret_hash") == Digest.sha256Hex(secret))
        for value in rows.flatMap(\.values) { if case .text(let text) = value { #expect(!text.contains(secret)) } }
    }

    @Test(arguments: Store.allCases)
    func createHandoff_422_404_409(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.mint(#"{"expires_in_seconds":29}"#).status == 422)
        #expect(f.mint(#"{"expires_in_seconds":901}"#).status == 422)
        #expect(f.app.json(f.mint(#"{"expires_in_seconds":30}"#))["expires_in_seconds"] as? Int == 30)
        #expect(f.app.json(f.mint(#"{"expires_in_seconds":900}"#))["expires_in_seconds"] as? Int == 900)
        #expect(f.app.json(f.mint(#"{"return_url":"https://app.example.com/other"}"#))["code"] as? String == "return_url_not_registered")
        #expect(f.mint(#"{"return_url":"https://app.example.com/done"}"#).status == 201)
        let other = try f.app.application.accounts.createAccount(name: "Other")
        #expect(f.app.request("POST", "/v1/verifications/\(f.verificationID)/handoffs",
                              headers: [("Authorization", "Bearer \(other.secret.value)")], body: "{}").status == 404)
        _ = f.app.request("POST", "/v1/verifications/\(f.verificationID)/cancel", headers: f.auth)
        let closed = f.mint()
        #expect(closed.status == 409)
        #expect(f.app.json(closed)["code"] as? String == "verification_closed")
    }

    @Test(arguments: Store.allCases)
    func journeyPage_200_sameForAnyId_withSecurityHeaders_andConsumesNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let secret = try f.secret()
        let known = f.app.request("GET", "/j/\(f.verificationID)")
        let unknown = f.app.request("GET", "/j/ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")
        let junk = f.app.request("GET", "/j/not-an-id")
        #expect(known.status == 200)
        #expect(known.body == unknown.body && known.body == junk.body)
        #expect(known.headers["Content-Type"] == "text/html; charset=utf-8")
        let csp = try #require(known.headers["Content-Security-Policy"])
        #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
        #expect(known.headers["Referrer-Policy"] == "no-referrer")
        #expect(known.headers["Permissions-Policy"]?.contains("camera=(self)") == true)
        #expect(known.headers["X-Content-Type-Options"] == "nosniff")
        #expect(known.headers["Cache-Control"] == "no-store")
        #expect(f.app.request("HEAD", "/j/\(f.verificationID)").status == 200)
        // Link scanners that only GET and HEAD burn nothing.
        #expect(f.exchange(secret).status == 200)
    }

    @Test(arguments: Store.allCases)
    func exchange_200_once_setsScopedCookie_andStartsTheVerification(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.status() == "created")
        let secret = try f.secret()
        let first = f.exchange(secret)
        #expect(first.status == 200)
        let cookie = try #require(first.headers["Set-Cookie"])
        #expect(cookie.contains("Path=/j/\(f.verificationID)"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Secure"))
        let token = try #require(first.cookie("hosted_session"))
        #expect(token != secret)
        #expect(f.status() == "in_progress")

        let state = f.journey("GET", "/api/state", session: token)
        #expect(state.status == 200)
        #expect(f.app.json(state)["status"] as? String == "in_progress")
        #expect(!String(decoding: state.body, as: UTF8.self).contains("9876543210"))

        let again = f.exchange(secret)
        #expect(again.status == 401)
        #expect(again.headers["Set-Cookie"] == nil)
        // The session is stored only as a hash.
        let rows = try f.app.application.database.query("SELECT token_hash FROM journey_sessions")
        #expect(try rows.map { try $0.string("token_hash") } == [Digest.sha256Hex(token)])
    }

    @Test(arguments: Store.allCases)
    func exchange_401_identicalForExpiredUsedUnknownForeignAndCanceled(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        var answers: [Response] = []
        // Used.
        let used = try f.secret()
        _ = f.exchange(used)
        answers.append(f.exchange(used))
        // Expired.
        let late = try f.secret()
        f.clock.advance(by: 301)
        answers.append(f.exchange(late))
        // Unknown, and malformed.
        answers.append(f.exchange(Base64URL.encode([UInt8](repeating: 7, count: 32))))
        answers.append(f.exchange("not-a-secret"))
        // Another verification's handoff.
        let other = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.auth,
                                              body: #"{"user_id":"u2","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let foreignURL = f.app.json(f.app.request("POST", "/v1/verifications/\(other)/handoffs", headers: f.auth, body: "{}"))["url"] as? String ?? ""
        answers.append(f.exchange(String(foreignURL.split(separator: "#")[1].dropFirst("handoff=".count))))
        // Canceled after minting.
        let beforeCancel = try f.secret()
        _ = f.app.request("POST", "/v1/verifications/\(f.verificationID)/cancel", headers: f.auth)
        answers.append(f.exchange(beforeCancel))

        for answer in answers {
            #expect(answer.status == 401)
            #expect(answer.body == answers[0].body)
            #expect(answer.headers["Set-Cookie"] == nil)
        }
    }

    @Test(arguments: Store.allCases)
    func journeyPOSTs_403_withoutSameOrigin_andChangeNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let secret = try f.secret()
        for origin in [nil, "https://evil.example", "http://verify.example.com", "null"] as [String?] {
            let refused = f.exchange(secret, origin: origin)
            #expect(refused.status == 403)
            #expect(f.app.json(refused)["code"] as? String == "origin_mismatch")
            #expect(f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#, origin: origin).status == 403)
        }
        #expect(f.outbox().isEmpty)
        #expect(f.exchange(secret).status == 200)
    }

    @Test(arguments: Store.allCases)
    func cancel_endsSessions(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let token = try #require(f.exchange(try f.secret()).cookie("hosted_session"))
        #expect(f.journey("GET", "/api/state", session: token).status == 200)
        _ = f.app.request("POST", "/v1/verifications/\(f.verificationID)/cancel", headers: f.auth)
        #expect(f.journey("GET", "/api/state", session: token).status == 401)
    }

    @Test(arguments: Store.allCases)
    func smsCode_signsIn_once_sameAnswerForOtherNumbers(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let other = f.journey("POST", "/api/otp", body: #"{"mobile":"+14155550123"}"#)
        #expect(other.status == 202)
        #expect(f.outbox().isEmpty)
        f.clock.advance(by: 31)
        // The same number written with spaces and dashes is the same number.
        let sent = f.journey("POST", "/api/otp", body: #"{"mobile":"+91 98765-43210"}"#)
        #expect(sent.status == 202)
        #expect(sent.body == other.body)
        let code = try f.latestCode()
        #expect(code.allSatisfy(\.isNumber) && code.count == 6)
        // Stored only as a keyed HMAC.
        for value in try f.app.application.database.query("SELECT * FROM otp_codes").flatMap(\.values) {
            if case .text(let text) = value { #expect(!text.contains(code)) }
        }
        let verified = f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(code)"}"#)
        #expect(verified.status == 200)
        #expect(verified.cookie("hosted_session") != nil)
        #expect(f.status() == "in_progress")
        #expect(f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(code)"}"#).status == 401)
    }

    @Test(arguments: Store.allCases)
    func smsCode_fiveWrongTriesBurnIt_newCodeReplacesOld_expiresAfterTenMinutes(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        _ = f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        let burned = try f.latestCode()
        let wrong = burned == "000000" ? "111111" : "000000"
        for _ in 0..<5 {
            let attempt = f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(wrong)"}"#)
            #expect(attempt.status == 401)
            #expect(f.app.json(attempt)["code"] as? String == "code_invalid")
        }
        #expect(f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(burned)"}"#).status == 401)

        f.clock.advance(by: 31)
        _ = f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        let first = try f.latestCode()
        f.clock.advance(by: 31)
        _ = f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        let second = try f.latestCode()
        if first != second {
            #expect(f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(first)"}"#).status == 401)
        }
        f.clock.advance(by: 601)
        #expect(f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(second)"}"#).status == 401)
    }

    @Test(arguments: Store.allCases)
    func smsCode_429_resendCooldownAndLimits_sameForAnyNumber(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        // The cooldown holds for each number asked for, the verification's or not.
        for number in ["+919876543210", "+14155550123"] {
            #expect(f.journey("POST", "/api/otp", body: #"{"mobile":"\#(number)"}"#).status == 202)
            let cooled = f.journey("POST", "/api/otp", body: #"{"mobile":"\#(number)"}"#)
            #expect(cooled.status == 429)
            let retry = try #require(cooled.headers["Retry-After"].flatMap(Int.init))
            #expect((1...30).contains(retry))
        }
        #expect(f.outbox().count == 1)
        // At most five codes an hour for one verification and number, however patient the sender.
        var statuses: [Int] = []
        for _ in 0..<6 {
            f.clock.advance(by: 31)
            statuses.append(f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#).status)
        }
        #expect(statuses.filter { $0 == 202 }.count == 4)
        #expect(statuses.last == 429)
        #expect(f.journey("POST", "/api/otp", body: #"{"mobile":"98765"}"#).status == 422)
    }

    /// Issue 37 (4): a stranger holding the journey link asks, from their own address, for codes
    /// for wrong numbers at the pace that used to keep the verification at 429 for good (five at
    /// once, then one every 12 minutes); the user, elsewhere, still gets every code they ask for.
    @Test(arguments: Store.allCases)
    func smsCode_202_aStrangerWithTheLinkNeverLocksTheUserOut(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, trustedProxies: ["127.0.0.1"])
        defer { f.close() }
        func ask(_ mobile: String, from address: String) -> Int {
            f.journey("POST", "/api/otp", body: #"{"mobile":"\#(mobile)"}"#, headers: [("X-Forwarded-For", address)]).status
        }
        for index in 0..<5 { #expect(ask("+1415555\(1000 + index)", from: "198.51.100.7") == 202) }
        for round in 1...6 {
            if round > 1 { f.clock.advance(by: 12 * 60) }
            #expect(ask("+1415555\(2000 + round)", from: "198.51.100.7") == 202)
            #expect(ask("+919876543210", from: "192.0.2.10") == 202, "round \(round)")
            #expect(f.outbox().count == round)
        }
        let code = try f.latestCode()
        #expect(f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(code)"}"#).status == 200)
    }

    /// The answers for the verification's number and for another are the same bytes (status,
    /// body, every header but the request id), at first, in the cooldown, and to a stranger
    /// asking right after the user (who must not learn which number was just used).
    @Test(arguments: Store.allCases)
    func smsCode_answersAreByteIdenticalForTheRightAndAWrongNumber(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, trustedProxies: ["127.0.0.1"])
        defer { f.close() }
        func ask(_ mobile: String, from address: String) -> Response {
            f.journey("POST", "/api/otp", body: #"{"mobile":"\#(mobile)"}"#, headers: [("X-Forwarded-For", address)])
        }
        func expectSame(_ right: Response, _ wrong: Response, status: Int) {
            let headers = { (response: Response) in
                response.headers.filter { $0.name.lowercased() != "x-request-id" }.map { "\($0.name.lowercased()): \($0.value)" }
            }
            #expect(right.status == status && wrong.status == status)
            #expect(right.body == wrong.body)
            #expect(headers(right) == headers(wrong))
        }
        expectSame(ask("+919876543210", from: "192.0.2.10"), ask("+14155550123", from: "192.0.2.10"), status: 202)
        expectSame(ask("+919876543210", from: "192.0.2.10"), ask("+14155550123", from: "192.0.2.10"), status: 429)
        expectSame(ask("+919876543210", from: "198.51.100.7"), ask("+14155550124", from: "198.51.100.7"), status: 202)
        // Five an hour for each number from one client, whichever number it is.
        var right: [Response] = [], wrong: [Response] = []
        for _ in 0..<5 {
            f.clock.advance(by: 31)
            right.append(ask("+919876543210", from: "192.0.2.10"))
            wrong.append(ask("+14155550123", from: "192.0.2.10"))
        }
        #expect(right.map(\.status) == [202, 202, 202, 202, 429])
        for (r, w) in zip(right, wrong) { expectSame(r, w, status: r.status) }
    }

    /// Issue 37 (9): sign in by SMS, change the mobile number, finish, reject, redact: neither the
    /// former number nor the current one is left anywhere (SQLite: the database files, WAL and
    /// shared memory byte for byte; PostgreSQL: every row of every table), in any spelling, nor
    /// as a bare SHA-256; before that, rate-limit buckets name a number only by a keyed hash.
    @Test(arguments: Store.allCases)
    func redaction_erasesEveryNumberTheVerificationEverHad(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let former = "+919876543210", current = "+918765401234"
        #expect(f.journey("POST", "/api/otp", body: #"{"mobile":"\#(former)"}"#).status == 202)
        let signedIn = f.journey("POST", "/api/otp/verify", body: #"{"code":"\#(try f.latestCode())"}"#)
        let cookie = try #require(signedIn.cookie("hosted_session"))
        #expect(f.app.request("PATCH", "/v1/verifications/\(f.verificationID)", headers: f.auth,
                              body: #"{"mobile":"\#(current)"}"#).status == 200)
        f.clock.advance(by: 31)
        #expect(f.journey("POST", "/api/otp", body: #"{"mobile":"\#(current)"}"#).status == 202)
        #expect(f.journey("POST", "/api/steps/selfie/images", body: ConsoleTests.photo, contentType: "image/jpeg", session: cookie).status == 201)
        #expect(f.journey("POST", "/api/steps/selfie/complete", session: cookie).status == 200)
        #expect(f.journey("POST", "/api/submit", session: cookie).status == 200)
        #expect(f.app.request("POST", "/v1/verifications/\(f.verificationID)/decision", headers: f.auth,
                              body: #"{"decision":"rejected","reason":"other"}"#).status == 200)
        f.app.application.runBackgroundWork()
        let forms = { (number: String) in [number, String(number.dropFirst()), String(number.dropFirst(3)), Digest.sha256Hex(number)] }
        let buckets = try f.app.application.database.query("SELECT bucket FROM rate_limits").map { try $0.string("bucket") }
        #expect(buckets.contains { $0.hasPrefix("otp-number:") })
        for bucket in buckets {
            #expect(!(forms(former) + forms(current)).contains { bucket.contains($0) }, "\(bucket) names a number")
        }
        let before = try f.app.storedBytes()
        #expect(before.contains(text: former) && before.contains(text: current))
        #expect(f.app.request("POST", "/v1/verifications/\(f.verificationID)/redact", headers: f.auth).status == 200)
        let stored = try f.app.storedBytes()
        for form in forms(former) + forms(current) {
            let found = stored.contains(text: form)
            #expect(!found, "\(form) is still stored")
        }
    }

    /// Per client address: 20 codes an hour across verifications; `X-Forwarded-For` is believed
    /// only from a trusted proxy (the test's peer is 127.0.0.1).
    @Test(arguments: [true, false])
    func smsCode_429_perClientAddress(_ trustProxy: Bool) throws {
        let f = try Fixture(.sqlite, trustedProxies: trustProxy ? ["127.0.0.1"] : [])
        defer { f.close() }
        var statuses: [Int] = []
        for index in 0..<21 {
            let id = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.auth,
                                              body: #"{"user_id":"ip\#(index)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String
            // A different number each time, so only the per-address budget is shared.
            statuses.append(f.app.journey("POST", id ?? f.verificationID, "/api/otp", body: #"{"mobile":"+1415555\#(1000 + index)"}"#,
                                          headers: [("X-Forwarded-For", "198.51.100.7")]).status)
        }
        #expect(statuses.prefix(20).allSatisfy { $0 == 202 })
        #expect(statuses.last == 429)
        // Another client behind the trusted proxy has its own budget; without trust, the proxy's
        // address is the client and the budget is shared.
        let id = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.auth,
                                          body: #"{"user_id":"ip-other","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String
        let fresh = f.app.journey("POST", id ?? f.verificationID, "/api/otp", body: #"{"mobile":"+14155559999"}"#,
                                  headers: [("X-Forwarded-For", "192.0.2.99")])
        #expect(fresh.status == (trustProxy ? 202 : 429))
    }

    @Test func smsCode_503_whenNoSenderIsConfigured() throws {
        let f = try Fixture(.sqlite, devMode: false)
        defer { f.close() }
        let response = f.journey("POST", "/api/otp", body: #"{"mobile":"+919876543210"}"#)
        #expect(response.status == 503)
        #expect(f.app.json(response)["code"] as? String == "sms_unavailable")
    }
}
