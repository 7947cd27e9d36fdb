import Foundation
import HostedApp
import HostedHTTP
import HostedTestSupport
import Testing

/// The console's "Ask for a retake" (`POST /console/api/verifications/{id}/resubmission`) and its
/// evidence display, on SQLite and PostgreSQL: the same rules as the API's resubmission with the
/// operator as actor, refused outside `submitted`, bad fields refused before anything changes,
/// another account's verification not found; the detail lists every photo with its checks, the
/// face box in stored-image pixels and the superseded ones. tests/e2e/test_console_captures.py
/// drives the same in real browsers.
@Suite struct ConsoleResubmissionTests {
    static let selfieAgain = #"{"steps":["selfie"],"reason":"face_not_visible","message":"Please retake it in daylight.","notify":false}"#

    static func ask(_ f: ConsoleTests.Fixture, _ id: String, _ body: String = selfieAgain, cookie: String?,
                    origin: String? = TestApplication.origin) -> Response {
        f.app.console("POST", "/console/api/verifications/\(id)/resubmission", body: body, cookie: cookie, origin: origin)
    }

    /// As `ConsoleTests.Fixture.submitted`, with a second between the last step and the submit: the
    /// fixture's clock stands still, and a step completed in the submit's own millisecond (stored
    /// with more precision than `submitted_at`) would count as completed after it.
    static func submitted(_ f: ConsoleTests.Fixture) -> String {
        let id = f.json(f.post("/v1/verifications", #"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let session = f.app.journeySession(verificationID: id, auth: f.auth)
        #expect(f.app.journey("POST", id, "/api/steps/profile/profile", body: #"{"full_name":"Asha Verma","date_of_birth":"1990-04-01"}"#,
                              session: session).status == 200)
        #expect(f.app.journey("POST", id, "/api/steps/selfie/images", body: ConsoleTests.photo, contentType: "image/jpeg",
                              session: session).status == 201)
        #expect(f.app.journey("POST", id, "/api/steps/selfie/complete", session: session).status == 200)
        f.clock.advance(by: 1)
        #expect(f.app.journey("POST", id, "/api/submit", session: session).status == 200)
        return id
    }

    static func detail(_ f: ConsoleTests.Fixture, _ id: String, cookie: String) -> [String: Any] {
        f.json(f.app.console("GET", "/console/api/verifications/\(id)", cookie: cookie))
    }

    static func selfieImages(_ detail: [String: Any]) -> [[String: Any]] {
        let steps = detail["steps"] as? [[String: Any]] ?? []
        return steps.first { $0["id"] as? String == "selfie" }?["images"] as? [[String: Any]] ?? []
    }

    @Test(arguments: Store.allCases)
    func resubmission_200_fromSubmitted_withTheOperatorAsActor(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        let id = Self.submitted(f)
        let operatorID = try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        let before = Self.detail(f, id, cookie: cookie)
        #expect(before["can_resubmit"] as? Bool == true)
        #expect(before["resubmission_reasons"] as? [String]
                == ["photo_unclear", "face_not_visible", "wrong_premises", "document_unreadable", "other"])
        #expect((before["verification"] as? [String: Any])?["max_resubmissions"] as? Int == 2)

        let sent = Self.ask(f, id, cookie: cookie)
        #expect(sent.status == 200, "\(String(decoding: sent.body, as: UTF8.self))")
        let answer = f.json(sent)
        #expect(answer["outcome"] as? String == "resubmission_requested")
        let shown = try #require(answer["verification"] as? [String: Any])
        #expect(shown["status"] as? String == "resubmission_requested")
        #expect(shown["resubmissions"] as? Int == 1)
        #expect(shown["resubmission_reason"] as? String == "face_not_visible")
        #expect(shown["reopened_steps"] as? [String] == ["selfie"])

        // The API agrees: only the named step is open again, its photo kept as superseded.
        let verification = f.verification(id)
        #expect(verification["status"] as? String == "resubmission_requested")
        let steps = verification["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0["status"] as? String } == ["completed", "pending"])
        #expect((steps.last?["captures"] as? [[String: Any]])?.map { $0["superseded"] as? Bool } == [true])

        // One event, by the operator, with the steps and the reason; the message is never in it.
        let events = f.events(id)
        let event = try #require(events.first { $0["type"] as? String == "verification.resubmission_requested" })
        #expect((event["actor"] as? [String: Any])?["type"] as? String == "operator")
        #expect((event["actor"] as? [String: Any])?["id"] as? String == operatorID)
        #expect((event["data"] as? [String: Any])?["steps"] as? [String] == ["selfie"])
        #expect((event["data"] as? [String: Any])?["reason"] as? String == "face_not_visible")
        #expect(!String(decoding: try JSONSerialization.data(withJSONObject: events), as: UTF8.self).contains("daylight"))
        #expect(try EventStoreAudit.verify(f.app))

        // The detail: no decision and no second retake meanwhile; the old photo stays for review.
        let after = Self.detail(f, id, cookie: cookie)
        #expect(after["can_decide"] as? Bool == false)
        #expect(after["can_resubmit"] as? Bool == false)
        #expect((after["verification"] as? [String: Any])?["resubmission_message"] as? String == "Please retake it in daylight.")
        #expect(Self.selfieImages(after).map { $0["superseded"] as? Bool } == [true])
    }

    @Test(arguments: Store.allCases)
    func resubmission_409_whenNotSubmitted(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        let open = f.json(f.post("/v1/verifications", #"{"user_id":"user-9","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let early = Self.ask(f, open, cookie: cookie)
        #expect(early.status == 409)
        #expect(f.code(early) == "verification_not_submitted")
        #expect(Self.detail(f, open, cookie: cookie)["can_resubmit"] as? Bool == false)

        // Once sent back, not again until the user submits; once decided, never.
        let sent = f.submitted("user-2")
        #expect(Self.ask(f, sent, cookie: cookie).status == 200)
        #expect(f.code(Self.ask(f, sent, cookie: cookie)) == "verification_not_submitted")
        let decided = f.submitted("user-3")
        #expect(f.app.console("POST", "/console/api/verifications/\(decided)/decision", body: #"{"decision":"approved"}"#,
                              cookie: cookie).status == 200)
        let late = Self.ask(f, decided, cookie: cookie)
        #expect(late.status == 409)
        #expect(f.code(late) == "verification_not_submitted")
        #expect(f.verification(decided)["status"] as? String == "approved")
        #expect(f.verification(open)["resubmissions"] as? Int == 0)
    }

    @Test(arguments: Store.allCases)
    func resubmission_422_onBadFields_and400_onABodyThatIsNotJSON(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        let invalid: [(String, String)] = [
            (#"{"steps":["selfie"],"reason":"ugly"}"#, "reason"),
            (#"{"steps":["selfie"]}"#, "reason"),
            (#"{"steps":["passport"],"reason":"other"}"#, "steps"),
            (#"{"steps":[],"reason":"other"}"#, "steps"),
            (#"{"reason":"other"}"#, "steps"),
            (#"{"steps":["selfie","selfie"],"reason":"other"}"#, "steps"),
            (#"{"steps":["selfie"],"reason":"other","message":"\#(String(repeating: "x", count: 501))"}"#, "message"),
            (#"{"steps":["selfie"],"reason":"other","notify":"yes"}"#, "notify"),
            (#"{"steps":["selfie"],"reason":"other","actor":"api"}"#, "actor"),
        ]
        for (body, field) in invalid {
            let refused = Self.ask(f, id, body, cookie: cookie)
            #expect(refused.status == 422, "\(body)")
            #expect(refused.headers["Content-Type"] == "application/problem+json")
            let fields = (f.json(refused)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(fields.contains(field), "\(body): \(fields)")
        }
        #expect(Self.ask(f, id, "not json", cookie: cookie).status == 400)
        // A message of exactly 500 characters is fine.
        let longest = #"{"steps":["selfie"],"reason":"other","message":"\#(String(repeating: "म", count: 500))"}"#
        #expect(f.verification(id)["status"] as? String == "submitted")
        #expect(f.verification(id)["resubmissions"] as? Int == 0)
        #expect(Self.ask(f, id, longest, cookie: cookie).status == 200)
    }

    @Test(arguments: Store.allCases)
    func resubmission_401_403_404_signedOutForeignOriginAndAnotherAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let other = try f.app.application.accounts.createAccount(name: "Other")
        try f.activeOperator("eve@other.example", role: .admin, account: other.account.id)
        try f.activeOperator("ana@acme.example")
        let eve = try #require(f.signIn("eve@other.example"))
        let ana = try #require(f.signIn("ana@acme.example"))

        let foreign = Self.ask(f, id, cookie: eve)
        #expect(foreign.status == 404)
        #expect(f.code(foreign) == "not_found")
        #expect(Self.ask(f, id, cookie: nil).status == 401)
        let crossOrigin = Self.ask(f, id, cookie: ana, origin: "https://evil.example")
        #expect(crossOrigin.status == 403)
        #expect(f.code(crossOrigin) == "origin_mismatch")
        #expect(f.verification(id)["status"] as? String == "submitted")
        #expect(f.verification(id)["resubmissions"] as? Int == 0)
        #expect(f.events(id).allSatisfy { $0["type"] as? String != "verification.resubmission_requested" })
        // Both roles decide, so both may ask (an admin of the account, too).
        try f.activeOperator("root@acme.example", role: .admin)
        let admin = try #require(f.signIn("root@acme.example"))
        #expect(Self.detail(f, id, cookie: admin)["can_resubmit"] as? Bool == true)
        #expect(Self.ask(f, id, cookie: admin).status == 200)
    }

    @Test(arguments: Store.allCases)
    func detail_showsEveryCapture_withItsChecks_faceBox_andTheSupersededOne(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        let id = f.json(f.post("/v1/verifications", #"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let session = f.app.journeySession(verificationID: id, auth: f.auth)
        func journey(_ method: String, _ path: String, _ body: [UInt8] = []) -> Response {
            f.app.journey(method, id, path, body: body, contentType: body.isEmpty ? "application/json" : "image/jpeg", session: session)
        }
        #expect(journey("POST", "/api/steps/profile/profile", Array(#"{"full_name":"Asha Verma","date_of_birth":"1990-04-01"}"#.utf8))
            .status == 200)
        let dark = f.json(journey("POST", "/api/steps/selfie/images", try CaptureChecksAPITests.fixture("portrait-dark.jpg")))
        let darkID = try #require(dark["artifact_id"] as? String)
        #expect(journey("DELETE", "/api/steps/selfie/images/\(darkID)").status == 204)
        #expect(journey("POST", "/api/steps/selfie/images", try CaptureChecksAPITests.fixture("portrait.jpg")).status == 201)
        #expect(journey("POST", "/api/steps/selfie/complete").status == 200)
        #expect(journey("POST", "/api/submit").status == 200)
        try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))

        let images = Self.selfieImages(Self.detail(f, id, cookie: cookie))
        #expect(images.count == 2)
        let (old, retake) = (images.first ?? [:], images.last ?? [:])
        #expect(old["artifact_id"] as? String == darkID)
        #expect(old["superseded"] as? Bool == true)
        #expect(retake["superseded"] as? Bool == false)
        let oldQuality = try #require(old["quality"] as? [String: Any])
        #expect(oldQuality["passed"] as? Bool == false)
        #expect((oldQuality["reasons"] as? [String])?.contains("too_dark") == true)
        let quality = try #require(retake["quality"] as? [String: Any])
        #expect(quality["passed"] as? Bool == true)
        #expect(quality["attempt"] as? Int == 2)
        #expect(quality["accepted_by_user"] as? Bool == false)
        #expect((quality["scores"] as? [String: Any])?["faces"] as? Int == 1)
        // The face box is in the stored photo's pixels, and inside it.
        let (width, height) = (try #require(retake["width"] as? Int), try #require(retake["height"] as? Int))
        let face = try #require(quality["face"] as? [String: Int])
        #expect(width == 600 && height == 600)
        #expect((face["x"] ?? -1) >= 0 && (face["y"] ?? -1) >= 0 && (face["width"] ?? 0) > 100)
        #expect((face["x"] ?? 0) + (face["width"] ?? 0) <= width && (face["y"] ?? 0) + (face["height"] ?? 0) <= height)
        // The same facts as the API's captures, and both photos load for the reviewer.
        let captures = (f.verification(id)["steps"] as? [[String: Any]])?.last?["captures"] as? [[String: Any]] ?? []
        #expect(captures.map { $0["id"] as? String } == images.map { $0["artifact_id"] as? String })
        #expect(((captures.last?["quality"] as? [String: Any])?["face"] as? [String: Int]) == face)
        for image in images {
            #expect(f.app.console("GET", image["display_url"] as? String ?? "", cookie: cookie).status == 200)
        }
    }
}
