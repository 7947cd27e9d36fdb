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
    struct Fixture: AccountFixture {
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
        let session = f.app.journeySession(verificationID: f.verificationID, auth: f.auth)
        #expect(!session.isEmpty)
        let cookie = ("Cookie", "hosted_session=\(session)")
        #expect(f.app.admit("POST", upload) == 403)                                        // no Origin
        #expect(f.app.admit("POST", upload, headers: [("Origin", TestApplication.origin)]) == 401)   // no session
        #expect(f.app.admit("POST", upload, headers: [("Origin", TestApplication.origin), ("Cookie", "hosted_session=forged")]) == 401)
        #expect(f.app.admit("POST", upload, headers: [("Origin", "https://evil.example"), cookie]) == 403)
        #expect(f.app.admit("POST", "/j/ver_nope/api/steps/selfie/images", headers: [("Origin", TestApplication.origin), cookie]) == 401)
        #expect(f.app.admit("POST", upload, headers: [("Origin", TestApplication.origin), cookie]) == nil)
        // Sign-in calls need the page's origin before their (small) body is read.
        #expect(f.app.admit("POST", "/j/\(f.verificationID)/api/otp") == 403)
        #expect(f.app.admit("POST", "/j/\(f.verificationID)/api/otp", headers: [("Origin", TestApplication.origin)]) == nil)
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
        let poll = { f.app.reply("GET", "/v1/verifications/\(f.verificationID)?wait=2", headers: f.auth + [("If-None-Match", etag)]) }
        let answers = [Answer(), Answer()]
        for answer in answers { try #require(poll().deferred).start { answer.set($0) } }
        let third = try #require(poll().response)
        #expect(third.status == 429)
        #expect(f.app.json(third)["code"] as? String == "rate_limited")
        // Answered (here at their timeout), the slots are free again.
        for answer in answers { #expect(answer.wait(seconds: 5)?.status == 304) }
        #expect(poll().deferred != nil)
    }

    /// A NUL in any text of a create is refused with the field named and said as a NUL (a
    /// metadata value included: it is a string, just not one we keep), and nothing is created.
    @Test(arguments: Store.allCases)
    func aNULInAnyTextOfACreate_isRefusedByName_andCreatesNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let base: [String: Any] = ["user_id": "nul-user", "workflow": "kyc", "mobile": "+919876543210"]
        let cases: [(field: String, body: [String: Any])] = [
            ("user_id", base.merging(["user_id": "nul\u{0}user"]) { $1 }),
            ("workflow", base.merging(["workflow": "kyc\u{0}"]) { $1 }),
            ("return_url", base.merging(["return_url": "https://app.example.com/\u{0}"]) { $1 }),
            ("metadata.note", base.merging(["metadata": ["note": "a\u{0}b"]]) { $1 }),
        ]
        for (field, body) in cases {
            let data = try JSONSerialization.data(withJSONObject: body)
            let response = f.app.request("POST", "/v1/verifications", headers: f.auth, body: String(decoding: data, as: UTF8.self))
            #expect(response.status == 422, "\(field)")
            let errors = f.app.json(response)["errors"] as? [[String: Any]] ?? []
            #expect(errors.contains { $0["field"] as? String == field && $0["message"] as? String == "must not contain NUL characters" },
                    "\(field): \(errors)")
        }
        let listed = f.app.json(f.app.request("GET", "/v1/verifications?user_id=nul-user", headers: f.auth))["data"] as? [Any]
        #expect(listed?.isEmpty == true)
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
        for secret in secrets { #expect(!(try f.app.storedBytes()).contains(text: secret), "a secret is stored") }
        // The replaced secret stops working; the fresh one signs in, once.
        let exchange = { (secret: String) in
            f.app.journey("POST", f.verificationID, "/api/session", body: #"{"handoff":"\#(secret)"}"#)
        }
        #expect(exchange(secrets[0]).status == 401)
        #expect(exchange(secrets[1]).status == 200)
        // Used: a further replay cannot bring it back.
        let late = f.app.request("POST", path, headers: headers, body: "{}")
        #expect(late.status == 409)
        #expect(f.app.json(late)["code"] as? String == "handoff_not_reissuable")
        #expect(!(try f.app.storedBytes()).contains(text: secrets[1]))
    }

    @Test func everyHTMLPageAndAssetCarriesThePageSecurityHeaders() throws {
        let f = try Fixture(.sqlite) { $0.devMode = true }
        defer { f.close() }
        for path in ["/assets/journey/main.js", "/assets/journey/journey.css", "/j/\(f.verificationID)",
                     "/journey/digilocker/callback?state=forged&code=x"] {
            let response: Response
            switch f.app.reply("GET", path) {
            case .ready(let ready): response = ready
            case .deferred(let deferred):  // the DigiLocker callback answers off the worker
                let answer = Answer()
                deferred.start { answer.set($0) }
                response = try #require(answer.wait(seconds: 10))
            }
            #expect(response.status == 200 || response.status == 400, "\(path): \(response.status)")
            for name in ["Content-Security-Policy", "Referrer-Policy", "X-Content-Type-Options", "Permissions-Policy"] {
                #expect(response.headers[name] != nil, "\(path) lacks \(name)")
            }
            #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true, "\(path)")
        }
    }

    /// A return URL removed after a verification named it is no longer where the journey sends
    /// the user: submit then answers without a redirect.
    @Test(arguments: Store.allCases)
    func removingAReturnURLStopsRedirectsToIt(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let registered = f.app.request("POST", "/v1/return_urls", headers: f.auth, body: #"{"url":"https://app.example.com/done"}"#)
        let returnURLID = try #require(f.app.json(registered)["id"] as? String)
        _ = f.app.request("POST", "/v1/workflows", headers: f.auth, body: #"{"key":"quick","name":"Q","steps":[{"type":"profile"}]}"#)
        let created = f.app.request("POST", "/v1/verifications", headers: f.auth,
                                    body: #"{"user_id":"u2","workflow":"quick","mobile":"+919876543210","return_url":"https://app.example.com/done"}"#)
        let id = try #require(f.app.json(created)["id"] as? String)
        let session = f.app.journeySession(verificationID: id, auth: f.auth)
        #expect(f.app.json(f.app.journey("GET", id, "/api/state", session: session))["return_url"] as? String == "https://app.example.com/done")
        #expect(f.app.request("DELETE", "/v1/return_urls/\(returnURLID)", headers: f.auth).status == 200)
        let state = f.app.json(f.app.journey("GET", id, "/api/state", session: session))
        #expect(state["status"] as? String == "in_progress")
        #expect(state["return_url"] == nil || state["return_url"] is NSNull)
        #expect(f.app.journey("POST", id, "/api/steps/profile/profile", body: #"{"full_name":"Asha Rao","date_of_birth":"1990-01-01"}"#,
                              session: session).status == 200)
        let submitted = f.app.journey("POST", id, "/api/submit", session: session)
        #expect(submitted.status == 200)
        #expect(f.app.json(submitted)["redirect_url"] is NSNull)
    }

    /// Behind a proxy that appends its own `X-Forwarded-For` line, a spoofed first line used to be
    /// taken as the client: every request looked like a new address.
    @Test func repeatedForwardedForLinesAreOneList_readFromTheRight() throws {
        let f = try SMSFixture(.sqlite)
        defer { f.app.close() }
        var statuses: [Int] = []
        for index in 0..<21 {
            let id = f.verification(user: "spoof\(index)", mobile: "+14155550\(100 + index)")
            let response = f.app.journey("POST", id, "/api/otp", body: #"{"mobile":"+14155550\#(100 + index)"}"#, headers: [
                ("X-Forwarded-For", "10.9.\(index).1, 10.8.\(index).2"),  // what the client sent, different each time
                ("X-Forwarded-For", "198.51.100.77"),                      // what the trusted proxy appended
            ])
            statuses.append(response.status)
        }
        #expect(statuses.prefix(20).allSatisfy { $0 == 202 })
        #expect(statuses.last == 429)
    }

    /// Request bodies are read as RFC 8259 JSON and nothing looser: each of these is a 400
    /// problem and creates nothing, while the strict body next to them creates. A U+FEFF in a
    /// metadata value is kept as sent (Foundation's reader used to drop it).
    @Test(arguments: Store.allCases)
    func bodiesThatAreNotStrictJSON_areRefused_andCreateNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let fields = #""user_id":"u2","workflow":"kyc","mobile":"+919876543210""#
        let loose = [
            "{\(fields),}",                                     // a trailing comma
            "\u{FEFF}{\(fields)}",                              // a byte-order mark
            #"{"# + fields + #","metadata":{"a":"\ud800"}}"#,   // a lone surrogate escape
            "{\(fields),\"metadata\":" + String(repeating: "[", count: 513) + String(repeating: "]", count: 513) + "}",
            "{\(fields),\"user_id\":\"u3\"}",                  // a repeated name
            "{\(fields)} {}",                                   // a second value
        ]
        for body in loose {
            let response = f.app.request("POST", "/v1/verifications", headers: f.auth, body: body)
            #expect(response.status == 400, "\(body.prefix(80))")
            #expect(response.headers["Content-Type"] == "application/problem+json")
        }
        let listed = f.app.json(f.app.request("GET", "/v1/verifications?user_id=u2", headers: f.auth))
        #expect((listed["data"] as? [Any])?.count == 0)

        let created = f.app.request("POST", "/v1/verifications", headers: f.auth,
                                    body: "{\(fields),\"metadata\":{\"note\":\"\u{FEFF}x\"}}")
        #expect(created.status == 201)
        // Read as bytes: Foundation's reader (behind `json`) would drop the U+FEFF.
        #expect(String(decoding: created.body, as: UTF8.self).contains("\"note\":\"\u{FEFF}x\""))
    }
}
