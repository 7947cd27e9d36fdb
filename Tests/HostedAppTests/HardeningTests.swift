import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// The hostile tester's findings, each proved on the application: what is refused before a body
/// is read, what one client may hold, and where a secret could have been kept in clear.
@Suite struct HardeningTests {
    static let origin = "https://verify.example.com"

    struct Fixture {
        let app: TestApplication
        let auth: [(String, String)]
        let verificationID: String

        init(_ store: Store, configure: (inout Configuration) -> Void = { _ in }) throws {
            app = try TestApplication(store: store, configure: configure)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            _ = app.request("POST", "/v1/workflows", headers: auth,
                            body: #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"},{"type":"premises_photos","min":1,"max":2}]}"#)
            let verification = app.request("POST", "/v1/verifications", headers: auth,
                                           body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#)
            verificationID = app.json(verification)["id"] as? String ?? ""
        }

        func close() { app.close() }
    }

    @Test(arguments: Store.allCases)
    func uploads_areRefusedInTheHeaderPhase_withoutSessionOrOrigin(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let upload = "/j/\(f.verificationID)/api/steps/selfie/images"
        let session = f.app.journeySession(verificationID: f.verificationID, auth: f.auth, origin: Self.origin)
        #expect(!session.isEmpty)
        let cookie = ("Cookie", "hosted_session=\(session)")
        #expect(f.app.admit("POST", upload) == 403)                                        // no Origin
        #expect(f.app.admit("POST", upload, headers: [("Origin", Self.origin)]) == 401)   // no session
        #expect(f.app.admit("POST", upload, headers: [("Origin", Self.origin), ("Cookie", "hosted_session=forged")]) == 401)
        #expect(f.app.admit("POST", upload, headers: [("Origin", "https://evil.example"), cookie]) == 403)
        #expect(f.app.admit("POST", "/j/ver_nope/api/steps/selfie/images", headers: [("Origin", Self.origin), cookie]) == 401)
        #expect(f.app.admit("POST", upload, headers: [("Origin", Self.origin), cookie]) == nil)
        // Sign-in calls need the page's origin before their (small) body is read.
        #expect(f.app.admit("POST", "/j/\(f.verificationID)/api/otp") == 403)
        #expect(f.app.admit("POST", "/j/\(f.verificationID)/api/otp", headers: [("Origin", Self.origin)]) == nil)
    }

    @Test(arguments: Store.allCases)
    func customerAPIBodies_areRefusedInTheHeaderPhase_withoutALiveKey(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        for path in ["/v1/verifications", "/v1/workflows", "/v1/return_urls", "/v1/verifications/\(f.verificationID)/handoffs",
                     "/v1/verifications/\(f.verificationID)/decision"] {
            #expect(f.app.admit("POST", path) == 401, "\(path)")
            #expect(f.app.admit("POST", path, headers: [("Authorization", "Bearer sk_wrong")]) == 401, "\(path)")
            #expect(f.app.admit("POST", path, headers: f.auth) == nil, "\(path)")
        }
        #expect(f.app.admit("POST", "/v1/nothing-here", headers: f.auth) == 404)
        #expect(f.app.admit("PUT", "/v1/verifications", headers: f.auth) == 405)
    }

    @Test(arguments: Store.allCases)
    func longPolls_areBoundedPerAccountAndAddress(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store) { $0.maximumLongPolls = 2 }
        defer { f.close() }
        let read = f.app.request("GET", "/v1/verifications/\(f.verificationID)", headers: f.auth)
        let etag = try #require(read.headers["ETag"])
        let poll = { f.app.request("GET", "/v1/verifications/\(f.verificationID)?wait=2", headers: f.auth + [("If-None-Match", etag)]) }
        let answers = [Answer(), Answer()]
        for answer in answers { try #require(poll().deferred).start { answer.set($0) } }
        let third = poll()
        #expect(third.status == 429)
        #expect(f.app.json(third)["code"] as? String == "rate_limited")
        // Answered (here at their timeout), the slots are free again.
        for answer in answers { #expect(answer.wait(seconds: 5)?.status == 304) }
        #expect(poll().deferred != nil)
    }

    @Test(arguments: Store.allCases)
    func userIDs_areAnyCharactersButControls_keptVerbatim_andComparedExactly(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let precomposed = "caf\u{00E9}"      // é as one code point
        let decomposed = "cafe\u{0301}"      // e + combining acute: another id, byte for byte
        let ids = ["auth0|5f7c8ec7c33c6c004bbafe82", "google-oauth2|1234", "a+b@x.in", "\u{0917}\u{094D}\u{0930}\u{093E}\u{0939}\u{0915}-42",
                   precomposed, decomposed, String(repeating: "\u{0917}", count: 255)]
        var created: [String] = []
        for id in ids {
            let body = try JSONSerialization.data(withJSONObject: ["user_id": id, "workflow": "kyc", "mobile": "+919876543210"])
            let response = f.app.request("POST", "/v1/verifications", headers: f.auth, body: String(decoding: body, as: UTF8.self))
            #expect(response.status == 201, "\(id)")
            #expect(f.app.json(response)["user_id"] as? String == id)
            created.append(f.app.json(response)["id"] as? String ?? "")
        }
        #expect(Set(created).count == ids.count)
        let encoded = try #require(decomposed.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let listed = f.app.json(f.app.request("GET", "/v1/verifications?user_id=\(encoded)", headers: f.auth))["data"] as? [[String: Any]]
        #expect(listed?.count == 1)
        #expect(listed?.first?["user_id"] as? String == decomposed)
        for bad in ["", "tab\there", "line\nbreak", "\u{7F}", String(repeating: "u", count: 256)] {
            let body = try JSONSerialization.data(withJSONObject: ["user_id": bad, "workflow": "kyc", "mobile": "+919876543210"])
            let response = f.app.request("POST", "/v1/verifications", headers: f.auth, body: String(decoding: body, as: UTF8.self))
            #expect(response.status == 422, "\(bad.debugDescription)")
        }
    }

    /// A retried handoff creation used to replay the stored body — the URL with its secret — for
    /// 24 h. Now the record holds the handoff id only, and a replay mints a fresh secret.
    @Test(arguments: Store.allCases)
    func idempotentHandoffReplays_mintAFreshSecret_andNoSecretIsStored(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let path = "/v1/verifications/\(f.verificationID)/handoffs"
        let headers = f.auth + [("Idempotency-Key", "mint-1")]
        let first = f.app.request("POST", path, headers: headers, body: "{}")
        let replay = f.app.request("POST", path, headers: headers, body: "{}")
        #expect(first.status == 201 && replay.status == 201)
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        let (one, two) = (f.app.json(first), f.app.json(replay))
        #expect(one["id"] as? String == two["id"] as? String)
        let secrets = [one, two].map { String(($0["url"] as? String ?? "").split(separator: "#").last?.dropFirst("handoff=".count) ?? "") }
        #expect(secrets[0].count >= 43 && secrets[1].count >= 43 && secrets[0] != secrets[1])
        for secret in secrets { #expect(!TestApplication.contains(try f.app.storedBytes(), secret), "a secret is stored") }
        // The replaced secret stops working; the fresh one signs in, once.
        let exchange = { (secret: String) in
            f.app.request("POST", "/j/\(f.verificationID)/api/session", headers: [("Origin", Self.origin)], body: #"{"handoff":"\#(secret)"}"#)
        }
        #expect(exchange(secrets[0]).status == 401)
        #expect(exchange(secrets[1]).status == 200)
        // Used: a further replay cannot bring it back.
        let late = f.app.request("POST", path, headers: headers, body: "{}")
        #expect(late.status == 409)
        #expect(f.app.json(late)["code"] as? String == "handoff_not_reissuable")
        #expect(!TestApplication.contains(try f.app.storedBytes(), secrets[1]))
    }
}
