import Foundation
import HostedApp
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// A reviewer sends a submitted verification back for some steps (issue 39), through the
/// application on both stores: only from `submitted`, the workflow's cap, superseded photos, the
/// expiry moved, one event without the message, no decision meanwhile, the journey again, the SMS,
/// redaction and tenancy.
@Suite struct ResubmissionTests {
    static func submitted(_ store: Store) throws -> JourneyStepTests.Fixture {
        // Dev mode: texts land in the dev outbox, where the test reads them.
        let f = try JourneyStepTests.Fixture(store, returnURL: nil) { $0.devMode = true }
        f.completeAll()
        #expect(f.journey("POST", "/api/submit").status == 200)
        return f
    }

    static func request(_ f: JourneyStepTests.Fixture, _ body: String) -> Response {
        f.post("/v1/verifications/\(f.id)/resubmission", body)
    }

    static let selfieAgain = #"{"steps":["selfie"],"reason":"face_not_visible","message":"Please take the selfie again in daylight.","notify":true}"#

    @Test(arguments: Store.allCases)
    func resubmission_200_reopensOnlyTheNamedSteps_andTheJourneySubmitsAgain(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Self.submitted(store)
        defer { f.close() }
        let before = f.verification()
        let selfieBefore = try #require((before["steps"] as? [[String: Any]])?.first { $0["id"] as? String == "selfie" })
        let photo = try #require((selfieBefore["artifacts"] as? [String])?.first)

        let sent = Self.request(f, Self.selfieAgain)
        #expect(sent.status == 200)
        let after = f.json(sent)
        #expect(after["status"] as? String == "resubmission_requested")
        #expect(after["resubmissions"] as? Int == 1)
        #expect((after["expires_at"] as? String ?? "") >= (before["expires_at"] as? String ?? "~"))
        // Stored, not only answered: the workflow's time again is what a later read shows.
        #expect(f.verification()["expires_at"] as? String == after["expires_at"] as? String)
        let steps = try #require(after["steps"] as? [[String: Any]])
        let selfie = try #require(steps.first { $0["id"] as? String == "selfie" })
        #expect(selfie["status"] as? String == "pending")
        #expect((selfie["artifacts"] as? [String]) == [])
        #expect((selfie["captures"] as? [[String: Any]])?.map { $0["superseded"] as? Bool } == [true])
        #expect(steps.filter { $0["id"] as? String != "selfie" }.allSatisfy { $0["status"] as? String == "completed" })
        // The earlier photo stays for the reviewer.
        #expect(f.get("/v1/verifications/\(f.id)/artifacts/\(photo)").status == 200)

        // One event, with the steps and the reason, never the message.
        let events = f.json(f.get("/v1/verifications/\(f.id)/events?limit=100"))["data"] as? [[String: Any]] ?? []
        let event = try #require(events.last)
        #expect(event["type"] as? String == "verification.resubmission_requested")
        let data = try #require(event["data"] as? [String: Any])
        #expect(data["steps"] as? [String] == ["selfie"])
        #expect(data["reason"] as? String == "face_not_visible")
        #expect(!String(decoding: f.get("/v1/events?limit=100").body, as: UTF8.self).contains("daylight"))

        // No decision meanwhile.
        let decision = f.post("/v1/verifications/\(f.id)/decision", #"{"decision":"approved"}"#)
        #expect(decision.status == 409)
        #expect(f.code(decision) == "verification_not_submitted")

        // The user redoes the selfie and submits again; then the decision is possible.
        #expect(f.journey("POST", "/api/submit").status == 409)
        #expect(f.upload("selfie", JourneyStepTests.photo).status == 201)
        #expect(f.journey("POST", "/api/steps/selfie/complete").status == 200)
        // The journey still names the reopened step once it is redone (its screen lists them).
        let state = f.json(f.journey("GET", "/api/state"))
        #expect((state["resubmission"] as? [String: Any])?["steps"] as? [String] == ["selfie"])
        #expect((state["resubmission"] as? [String: Any])?["reason"] as? String == "face_not_visible")
        #expect((state["resubmission"] as? [String: Any])?["message"] as? String == "Please take the selfie again in daylight.")
        #expect(f.journey("POST", "/api/submit").status == 200)
        #expect(f.json(f.journey("GET", "/api/state"))["resubmission"] == nil)
        #expect(f.verification()["status"] as? String == "submitted")
        #expect(f.post("/v1/verifications/\(f.id)/decision", #"{"decision":"approved"}"#).status == 200)

        // The SMS carried the journey link, through the queue.
        f.app.application.runBackgroundWork()
        let outbox = f.json(f.app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []
        #expect(outbox.contains { ($0["body"] as? String)?.hasSuffix("/j/\(f.id)") == true },
                "\(outbox.map { $0["body"] as? String ?? "" })")
    }

    @Test(arguments: Store.allCases)
    func resubmission_409_outsideSubmitted_andPastTheWorkflowsCap(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try JourneyStepTests.Fixture(store, returnURL: nil)
        defer { f.close() }
        let early = Self.request(f, Self.selfieAgain)
        #expect(early.status == 409)
        #expect(f.code(early) == "verification_not_submitted")

        // A workflow that allows one resubmission.
        #expect(f.post("/v1/workflows", #"""
            {"key":"once","name":"Once","steps":[{"type":"selfie"}],"review":{"max_resubmissions":1}}
            """#).status == 201)
        let id = f.json(f.post("/v1/verifications", #"{"user_id":"u2","workflow":"once","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let cookie = f.app.journeySession(verificationID: id, auth: f.auth)
        func journey(_ method: String, _ path: String, _ body: [UInt8] = [], _ type: String = "application/json") -> Int {
            f.app.journey(method, id, path, body: body, contentType: type, session: cookie).status
        }
        func submitSelfie() {
            #expect(journey("POST", "/api/steps/selfie/images", JourneyStepTests.photo, "image/jpeg") == 201)
            #expect(journey("POST", "/api/steps/selfie/complete") == 200)
            #expect(journey("POST", "/api/submit") == 200)
        }
        submitSelfie()
        #expect(f.post("/v1/verifications/\(id)/resubmission", #"{"steps":["selfie"],"reason":"photo_unclear"}"#).status == 200)
        submitSelfie()
        let capped = f.post("/v1/verifications/\(id)/resubmission", #"{"steps":["selfie"],"reason":"photo_unclear"}"#)
        #expect(capped.status == 409)
        #expect(f.code(capped) == "resubmission_limit_reached")
        #expect(f.json(f.get("/v1/verifications/\(id)"))["status"] as? String == "submitted")
    }

    @Test(arguments: Store.allCases)
    func resubmission_422_changesNothing_andAnotherAccountGets404(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Self.submitted(store)
        defer { f.close() }
        for body in [#"{"steps":["nope"],"reason":"other"}"#, #"{"steps":[],"reason":"other"}"#, #"{"steps":["selfie"],"reason":"ugly"}"#,
                     #"{"reason":"other"}"#, #"{"steps":["selfie","selfie"],"reason":"other"}"#,
                     #"{"steps":["selfie"],"reason":"other","message":"\#(String(repeating: "x", count: 501))"}"#] {
            #expect(Self.request(f, body).status == 422)
        }
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let foreign = f.app.request("POST", "/v1/verifications/\(f.id)/resubmission",
                                    headers: [("Authorization", "Bearer \(other.secret.value)")], body: Self.selfieAgain)
        #expect(foreign.status == 404)
        #expect(f.verification()["status"] as? String == "submitted")
        #expect(f.verification()["resubmissions"] as? Int == 0)
    }

    @Test(arguments: Store.allCases)
    func redaction_erasesTheMessage(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Self.submitted(store)
        defer { f.close() }
        #expect(Self.request(f, Self.selfieAgain).status == 200)
        // Shown to the user, and sealed with the verification's other personal fields.
        #expect((f.json(f.journey("GET", "/api/state"))["resubmission"] as? [String: Any])?["message"] as? String
                == "Please take the selfie again in daylight.")
        #expect(try f.app.application.database.query("SELECT resubmission_message FROM verifications")[0]
            .optionalString("resubmission_message") == nil)
        #expect(!(try f.app.storedBytes()).contains(text: "daylight"))
        #expect(f.post("/v1/verifications/\(f.id)/cancel", "{}").status == 200)
        #expect(f.post("/v1/verifications/\(f.id)/redact", "{}").status == 200)
        #expect(try f.app.application.database.query("SELECT personal FROM verifications")[0]["personal"] == .null)
    }
}
