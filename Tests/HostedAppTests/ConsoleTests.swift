import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedStorage
import HostedTestSupport
import Testing

/// The operator console through its HTTP API, on SQLite and PostgreSQL: setup, sign-in,
/// lockout, sessions, the queue, the evidence, decisions with four eyes, tenancy.
/// tests/e2e/test_console.py drives the same screens in real browsers.
@Suite struct ConsoleTests {
    static let password = "plum tractor velvet 42"

    /// `@unchecked Sendable`: `seeds` is only changed on the test's own thread, outside the parallel parts.
    final class Fixture: AccountFixture, @unchecked Sendable {
        let app: TestApplication
        let clock: ManualClock
        let auth: [(String, String)]
        let accountID: ObjectID
        var seeds: [String: [UInt8]] = [:]

        init(_ store: Store, approvalsRequired: Int = 1) throws {
            clock = ManualClock(Date())
            app = try TestApplication(store: store, clock: clock)
            let created = try app.application.accounts.createAccount(name: "Acme")
            accountID = created.account.id
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            let review = approvalsRequired == 1 ? "" : #","review":{"approvals_required":\#(approvalsRequired)}"#
            #expect(app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"profile"},{"type":"selfie"}]\#(review)}
                """#).status == 201)
        }

        /// A verification the user has submitted: profile and selfie through the journey.
        func submitted(_ user: String = "user-1") -> String {
            let id = json(post("/v1/verifications", #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            let cookie = app.journeySession(verificationID: id, auth: auth)
            #expect(app.journey("POST", id, "/api/steps/profile/profile", body: #"{"full_name":"Asha Verma","date_of_birth":"1990-04-01"}"#,
                                session: cookie).status == 200)
            #expect(app.journey("POST", id, "/api/steps/selfie/images", body: ConsoleTests.photo, contentType: "image/jpeg",
                                session: cookie).status == 201)
            #expect(app.journey("POST", id, "/api/steps/selfie/complete", session: cookie).status == 200)
            #expect(app.journey("POST", id, "/api/submit", session: cookie).status == 200)
            return id
        }

        /// An operator of `account` who has completed setup; returns its id.
        @discardableResult
        func activeOperator(_ email: String, role: OperatorRole = .reviewer, account: ObjectID? = nil) throws -> String {
            let (op, url) = try app.application.console.create(accountID: account ?? accountID, email: email, role: role)
            let token = String(url.split(separator: "=").last ?? "")
            let setup = app.console("POST", "/console/api/setup", body: #"{"token":"\#(token)"}"#)
            #expect(setup.status == 200)
            let seed = ConsoleTests.base32(json(setup)["secret"] as? String ?? "")
            seeds[email] = seed
            let code = TOTPCodes.code(seed: seed, counter: TOTP.counter(at: clock.now()))
            let done = app.console("POST", "/console/api/setup/complete", body: #"{"token":"\#(token)","password":"\#(ConsoleTests.password)","code":"\#(code)"}"#)
            #expect(done.status == 200, "\(String(decoding: done.body, as: UTF8.self))")
            return op.id.rawValue
        }

        /// Signs in (on the next time step, so the setup code is not reused); the session cookie.
        func signIn(_ email: String, password: String = ConsoleTests.password) -> String? {
            clock.advance(by: 30)
            let code = TOTPCodes.code(seed: seeds[email] ?? [], counter: TOTP.counter(at: clock.now()))
            let response = app.console("POST", "/console/api/session", body: #"{"email":"\#(email)","password":"\#(password)","code":"\#(code)"}"#)
            return response.cookie("hosted_console")
        }

        func verification(_ id: String) -> [String: Any] { json(get("/v1/verifications/\(id)")) }
        func events(_ id: String) -> [[String: Any]] {
            json(get("/v1/verifications/\(id)/events?limit=100"))["data"] as? [[String: Any]] ?? []
        }
        func close() { app.close() }
    }

    static let photo: [UInt8] = (try? VipsImageNormalizer().normalize(TestImages.photoPNG(width: 120, height: 90)).bytes) ?? []

    static func base32(_ text: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { continue }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return bytes
    }

    @Test(arguments: Store.allCases)
    func setupSignInReviewAndApprove(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let operatorID = try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))

        // The cookie: HttpOnly, SameSite=Strict, only under /console, Secure on https.
        f.clock.advance(by: 30)
        let code = TOTPCodes.code(seed: f.seeds["ana@acme.example"]!, counter: TOTP.counter(at: f.clock.now()))
        let again = f.app.console("POST", "/console/api/session", body: #"{"email":"ANA@acme.example","password":"\#(Self.password)","code":"\#(code)"}"#)
        let setCookie = try #require(again.headers.all("Set-Cookie").first)
        #expect(setCookie.contains("; Path=/console;") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict")
                && setCookie.hasSuffix("; Secure"))
        // A fresh session id at every sign-in.
        #expect(!setCookie.contains(cookie))

        let queue = f.json(f.app.console("GET", "/console/api/queue", cookie: cookie))
        let rows = queue["data"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["id"] as? String } == [id])
        #expect((queue["counts"] as? [String: Int])?["submitted"] == 1)
        // Each tab counts that far only (docs/console.md); the console shows more as "10000+".
        #expect(queue["counts_limit"] as? Int == 10_000)

        let detail = f.json(f.app.console("GET", "/console/api/verifications/\(id)", cookie: cookie))
        let steps = detail["steps"] as? [[String: Any]] ?? []
        #expect((steps.first?["profile"] as? [String: String])?["full_name"] == "Asha Verma")
        let images = steps.last?["images"] as? [[String: Any]] ?? []
        #expect(images.count == 1)
        #expect(detail["can_decide"] as? Bool == true)

        // The display copy: a JPEG libvips made now, served only as an image and never cached.
        let display = f.app.console("GET", images.first?["display_url"] as? String ?? "", cookie: cookie)
        #expect(display.status == 200)
        #expect(Array(display.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(display.headers["Content-Security-Policy"] == "sandbox")
        #expect(display.headers["X-Content-Type-Options"] == "nosniff")
        #expect(display.headers["Cache-Control"] == "private, no-store")
        // Full size is the stored copy, byte for byte what the API downloads.
        let artifact = images.first?["artifact_id"] as? String ?? ""
        #expect(f.app.console("GET", images.first?["full_url"] as? String ?? "", cookie: cookie).body
                == f.get("/v1/verifications/\(id)/artifacts/\(artifact)").body)
        // Without the session, nothing.
        #expect(f.app.console("GET", images.first?["display_url"] as? String ?? "", cookie: nil).status == 401)

        let decided = f.app.console("POST", "/console/api/verifications/\(id)/decision",
                                    body: #"{"decision":"approved","note":"Face matches the photo ID."}"#, cookie: cookie)
        #expect(decided.status == 200)
        #expect(f.json(decided)["outcome"] as? String == "approved")
        #expect(f.verification(id)["status"] as? String == "approved")
        let events = f.events(id)
        let approved = try #require(events.first { $0["type"] as? String == "verification.approved" })
        #expect((approved["actor"] as? [String: Any])?["type"] as? String == "operator")
        #expect((approved["actor"] as? [String: Any])?["id"] as? String == operatorID)
        // The view and the note are events with the operator as actor; the note's text is not in them.
        let notes = events.filter { $0["type"] as? String == "verification.review_note" }
        #expect(notes.compactMap { ($0["data"] as? [String: Any])?["kind"] as? String } == ["viewed", "note"])
        #expect(!String(decoding: try JSONSerialization.data(withJSONObject: events), as: UTF8.self).contains("Face matches"))
        let after = f.json(f.app.console("GET", "/console/api/verifications/\(id)", cookie: cookie))
        #expect((after["notes"] as? [[String: Any]])?.first?["body"] as? String == "Face matches the photo ID.")
        #expect(after["can_decide"] as? Bool == false)
        // Deciding twice is refused by the status machine, as through the API.
        #expect(f.code(f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: cookie))
                == "verification_not_submitted")
        #expect(try EventStoreAudit.verify(f.app))
    }

    @Test(arguments: Store.allCases)
    func rejectionNeedsAReasonCode(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        for body in [#"{"decision":"rejected"}"#, #"{"decision":"rejected","reason":"looked odd"}"#, #"{"decision":"maybe"}"#,
                     #"{"decision":"approved","reason":"face_mismatch"}"#, #"{"decision":"rejected","reason":"other","extra":1}"#,
                     "not json", #"{"decision":"rejected","reason":"other","note":"\#(String(repeating: "x", count: 2001))"}"#] {
            let refused = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: body, cookie: cookie)
            #expect([400, 422].contains(refused.status), "\(body)")
            #expect(refused.headers["Content-Type"] == "application/problem+json")
        }
        #expect(f.verification(id)["status"] as? String == "submitted")
        let rejected = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"rejected","reason":"face_mismatch"}"#, cookie: cookie)
        #expect(f.json(rejected)["outcome"] as? String == "rejected")
        let verification = f.verification(id)
        #expect(verification["status"] as? String == "rejected")
        #expect(verification["decision_reason"] as? String == "face_mismatch")
        #expect((f.events(id).last?["data"] as? [String: Any])?["reason"] as? String == "face_mismatch")
    }

    @Test(arguments: Store.allCases)
    func fourEyesNeedTwoOperators(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, approvalsRequired: 2)
        defer { f.close() }
        let id = f.submitted()
        let first = try f.activeOperator("ana@acme.example")
        let second = try f.activeOperator("ravi@acme.example")
        let ana = try #require(f.signIn("ana@acme.example"))
        let ravi = try #require(f.signIn("ravi@acme.example"))

        let recorded = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: ana)
        #expect(f.json(recorded)["outcome"] as? String == "approval_recorded")
        #expect(f.verification(id)["status"] as? String == "submitted")
        #expect(f.json(f.app.console("GET", "/console/api/verifications/\(id)", cookie: ana))["can_decide"] as? Bool == false)
        let twice = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: ana)
        #expect(twice.status == 409)
        #expect(f.code(twice) == "approval_already_recorded")
        #expect(f.json(f.app.console("GET", "/console/api/queue", cookie: ravi))["data"].flatMap { ($0 as? [[String: Any]])?.first?["approvals"] as? Int } == 1)

        let decided = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: ravi)
        #expect(f.json(decided)["outcome"] as? String == "approved")
        #expect(f.verification(id)["status"] as? String == "approved")
        let decisions = f.events(id).filter {
            ["verification.approved"].contains($0["type"] as? String)
                || ($0["data"] as? [String: Any])?["kind"] as? String == "approval"
        }
        #expect(decisions.map { ($0["actor"] as? [String: Any])?["id"] as? String } == [first, second])
    }

    @Test(arguments: Store.allCases)
    func theAPIFollowsTheSameFourEyesRules(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, approvalsRequired: 2)
        defer { f.close() }
        let id = f.submitted()
        let approve = #"{"decision":"approved"}"#
        #expect(f.post("/v1/verifications/\(id)/decision", approve).status == 200)
        #expect(f.verification(id)["status"] as? String == "submitted")
        // The same key again is the same pair of eyes.
        let twice = f.post("/v1/verifications/\(id)/decision", approve)
        #expect(twice.status == 409)
        #expect(f.code(twice) == "approval_already_recorded")
        // Another key of the same account is the same backend: the same pair of eyes (issue 37).
        let otherKey = try f.app.application.accounts.createKey(accountID: f.accountID)
        let byOtherKey = f.app.request("POST", "/v1/verifications/\(id)/decision",
                                       headers: [("Authorization", "Bearer \(otherKey.secret.value)")], body: approve)
        #expect(byOtherKey.status == 409)
        #expect(f.code(byOtherKey) == "approval_already_recorded")
        #expect(f.verification(id)["status"] as? String == "submitted")
        // An operator's approval is the second.
        try f.activeOperator("ana@acme.example")
        let ana = try #require(f.signIn("ana@acme.example"))
        #expect(f.json(f.app.console("POST", "/console/api/verifications/\(id)/decision", body: approve, cookie: ana))["outcome"] as? String == "approved")
        #expect(f.verification(id)["status"] as? String == "approved")
    }

    @Test(arguments: Store.allCases)
    func operatorsSeeOnlyTheirOwnAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let other = try f.app.application.accounts.createAccount(name: "Other")
        try f.activeOperator("eve@other.example", role: .admin, account: other.account.id)
        let ana = try f.activeOperator("ana@acme.example")
        let eve = try #require(f.signIn("eve@other.example"))
        #expect((f.json(f.app.console("GET", "/console/api/queue?status=all", cookie: eve))["data"] as? [Any])?.isEmpty == true)
        #expect(f.app.console("GET", "/console/api/verifications/\(id)", cookie: eve).status == 404)
        let artifact = ((f.verification(id)["steps"] as? [[String: Any]])?.last?["artifacts"] as? [String])?.first ?? ""
        #expect(f.app.console("GET", "/console/api/verifications/\(id)/artifacts/\(artifact)?size=full", cookie: eve).status == 404)
        #expect(f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: eve).status == 404)
        #expect(f.app.console("POST", "/console/api/verifications/\(id)/notes", body: #"{"note":"x"}"#, cookie: eve).status == 404)
        // An admin manages only its own account's operators.
        let listed = f.json(f.app.console("GET", "/console/api/operators", cookie: eve))["data"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["email"] as? String } == ["eve@other.example"])
        #expect(f.app.console("POST", "/console/api/operators/\(ana)/disable", cookie: eve).status == 404)
        #expect(f.verification(id)["status"] as? String == "submitted")
        // A reviewer is not an admin.
        let anaCookie = try #require(f.signIn("ana@acme.example"))
        #expect(f.code(f.app.console("GET", "/console/api/operators", cookie: anaCookie)) == "operator_role_required")
    }

    @Test(arguments: Store.allCases)
    func changesAreRefusedFromAnotherOriginBeforeTheBody(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        for origin in [nil, "https://evil.example", "http://verify.example.com"] {
            let refused = f.app.console("POST", "/console/api/verifications/\(id)/decision", body: #"{"decision":"approved"}"#, cookie: cookie, origin: origin)
            #expect(refused.status == 403)
            #expect(f.code(refused) == "origin_mismatch")
        }
        #expect(f.app.admit("POST", "/console/api/verifications/\(id)/decision", headers: [("Cookie", "hosted_console=\(cookie)")]) == 403)
        #expect(f.app.admit("POST", "/console/api/verifications/\(id)/notes",
                            headers: [("Origin", TestApplication.origin), ("Cookie", "hosted_console=junk")]) == 401)
        #expect(f.verification(id)["status"] as? String == "submitted")
        // The pages are one shell with a strict CSP and no camera.
        let page = f.app.request("GET", "/console/verifications/\(id)")
        #expect(page.status == 200)
        #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self';") == true)
        #expect(page.headers["Permissions-Policy"]?.hasPrefix("camera=()") == true)
    }

    @Test(arguments: Store.allCases)
    func redactionErasesReviewNotes(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        #expect(f.app.console("POST", "/console/api/verifications/\(id)/notes", body: #"{"note":"Distinctive-note-7781"}"#, cookie: cookie).status == 201)
        #expect(f.app.console("POST", "/console/api/verifications/\(id)/decision",
                              body: #"{"decision":"rejected","reason":"other","note":"Second-note-5512"}"#, cookie: cookie).status == 200)
        // Readable in the console, sealed in the store.
        #expect(String(decoding: f.app.console("GET", "/console/api/verifications/\(id)", cookie: cookie).body, as: UTF8.self)
            .contains("Distinctive-note-7781"))
        #expect(!(try f.app.storedBytes()).contains(text: "Distinctive-note-7781"))
        #expect(f.post("/v1/verifications/\(id)/redact", "").status == 200)
        let stored = (try f.app.storedBytes())
        #expect(!stored.contains(text: "Distinctive-note-7781"))
        #expect(!stored.contains(text: "Second-note-5512"))
        #expect((f.json(f.app.console("GET", "/console/api/verifications/\(id)", cookie: cookie))["notes"] as? [Any])?.isEmpty == true)
        // No note can bring personal data back afterwards.
        #expect(f.app.console("POST", "/console/api/verifications/\(id)/notes", body: #"{"note":"Late-note-3391"}"#, cookie: cookie).status == 409)
        #expect(!(try f.app.storedBytes()).contains(text: "Late-note-3391"))
    }
}
