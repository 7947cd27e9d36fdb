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
}
