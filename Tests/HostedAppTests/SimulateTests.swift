import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// `POST /v1/test_helpers/verifications/{id}/simulate` (issue 40, DESIGN.md "Test mode"): every
/// action from a fresh test verification through the real status machine, on both stores — the
/// answers are the verification as `GET` shows it, every event a simulation records carries
/// `data.simulated: true` and the test key as actor, the chain verifies, every photo passes its
/// capture checks. The refusals (409, 403, 404, 422) are in `SimulateTests+Refusals`.
@Suite struct SimulateTests {
    struct Fixture {
        let app: TestApplication
        let live: [(String, String)]
        let test: [(String, String)]
        let testKeyID: String
        let hosts: URL

        /// A workflow with every step `complete_steps` fills: profile, selfie, two premises
        /// photos at least, a document and DigiLocker (Aadhaar and PAN).
        init(_ store: Store) throws {
            let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)")
            try "127.0.0.1 hooks.test\n".write(to: hosts, atomically: true, encoding: .utf8)
            self.hosts = hosts
            app = try TestApplication(store: store) { configuration in
                configuration.devMode = true
                configuration.webhookHostsFile = hosts.path
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            live = [("Authorization", "Bearer \(created.secret.value)")]
            let key = app.json(app.request("POST", "/v1/api_keys", headers: live, body: #"{"mode":"test"}"#))
            test = [("Authorization", "Bearer \(key["secret"] as? String ?? "")")]
            testKeyID = key["id"] as? String ?? ""
            let workflow = app.request("POST", "/v1/workflows", headers: live, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"profile"},{"type":"selfie","quality":"require"},
                 {"type":"premises_photos","id":"shop","min":2,"max":3,"quality":"require"},{"type":"document"},
                 {"type":"digilocker","documents":["aadhaar","pan"]}]}
                """#)
            #expect(workflow.status == 201)
        }

        func create(_ auth: [(String, String)], user: String = "user-1") -> String {
            app.json(app.request("POST", "/v1/verifications", headers: auth,
                                 body: #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        }

        /// A simulation, waited for (complete_steps answers once its photos are decoded).
        func simulate(_ id: String, _ body: String, auth: [(String, String)]? = nil) -> Response {
            TestApplication.response(of: app.reply("POST", "/v1/test_helpers/verifications/\(id)/simulate",
                                                   headers: auth ?? test, body: body))
        }

        func action(_ id: String, _ action: String, _ extra: String = "") -> Response {
            simulate(id, #"{"action":"\#(action)"\#(extra)}"#)
        }

        func verification(_ id: String) -> Response { app.request("GET", "/v1/verifications/\(id)", headers: test) }

        func events(_ id: String) -> [[String: Any]] {
            app.json(app.request("GET", "/v1/verifications/\(id)/events?limit=100", headers: test))["data"] as? [[String: Any]] ?? []
        }

        func close() {
            app.close()
            try? FileManager.default.removeItem(at: hosts)
        }
    }

    /// The answer is the verification exactly as `GET /v1/verifications/{id}` shows it then.
    /// `ignoring`: members compared apart (see the resubmission test).
    static func answersAsGET(_ f: Fixture, _ response: Response, _ id: String, ignoring: [String] = [],
                             sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        let read = f.verification(id)
        #expect(response.headers["ETag"] == read.headers["ETag"], sourceLocation: sourceLocation)
        guard !ignoring.isEmpty else { return #expect(response.body == read.body, sourceLocation: sourceLocation) }
        var answered = f.app.json(response), got = f.app.json(read)
        for name in ignoring { (answered[name], got[name]) = (nil, nil) }
        #expect(NSDictionary(dictionary: answered) == NSDictionary(dictionary: got), sourceLocation: sourceLocation)
    }

    /// Every event but the customer's create (and the `personal` ones: the person's own, or the
    /// customer's) is simulated, by the test key; the chain verifies. The events' types.
    static func simulatedEvents(_ f: Fixture, _ id: String, personal: Set<String> = [],
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let events = f.events(id)
        #expect(events.first?["type"] as? String == "verification.created", sourceLocation: sourceLocation)
        for event in events.dropFirst() where !personal.contains(event["type"] as? String ?? "") {
            let data = event["data"] as? [String: Any] ?? [:]
            #expect(data["simulated"] as? Bool == true, "\(event)", sourceLocation: sourceLocation)
            #expect((event["actor"] as? [String: Any])?["id"] as? String == f.testKeyID, sourceLocation: sourceLocation)
            #expect((event["actor"] as? [String: Any])?["type"] as? String == "api_key", sourceLocation: sourceLocation)
            #expect(event["livemode"] as? Bool == false, sourceLocation: sourceLocation)
        }
        #expect(try EventStoreAudit.verify(f.app), sourceLocation: sourceLocation)
        return events.map { $0["type"] as? String ?? "" }
    }

    /// Every step complete, and every photo of it passes its checks.
    static func everyStepFilled(_ verification: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        let steps = verification["steps"] as? [[String: Any]] ?? []
        #expect(steps.count == 5, sourceLocation: sourceLocation)
        for step in steps {
            #expect(step["status"] as? String == "completed", "\(step)", sourceLocation: sourceLocation)
            let artifacts = step["artifacts"] as? [String] ?? []
            #expect(!artifacts.isEmpty, "\(step["id"] ?? "")", sourceLocation: sourceLocation)
            let captures = (step["captures"] as? [[String: Any]] ?? []).filter { $0["superseded"] as? Bool == false }
            for capture in captures {
                let quality = capture["quality"] as? [String: Any] ?? [:]
                #expect(quality["passed"] as? Bool == true, "\(step["id"] ?? ""): \(quality)", sourceLocation: sourceLocation)
            }
            switch step["type"] as? String {
            case "selfie", "document": #expect(captures.count == 1, sourceLocation: sourceLocation)
            case "premises_photos": #expect(captures.count == 2, sourceLocation: sourceLocation)
            case "digilocker": #expect(artifacts.count == 2, sourceLocation: sourceLocation)
            default: #expect(artifacts.count == 1, sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: Store.allCases)
    func signIn_completeSteps_submit_approve(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create(f.test)
        let signedIn = f.action(id, "sign_in")
        Self.answersAsGET(f, signedIn, id)
        #expect(f.app.json(signedIn)["status"] as? String == "in_progress")
        let completed = f.action(id, "complete_steps")
        Self.answersAsGET(f, completed, id)
        let filled = f.app.json(completed)
        #expect(filled["status"] as? String == "in_progress")
        Self.everyStepFilled(filled)
        let submitted = f.action(id, "submit")
        Self.answersAsGET(f, submitted, id)
        #expect(f.app.json(submitted)["status"] as? String == "submitted")
        let approved = f.action(id, "approve")
        Self.answersAsGET(f, approved, id)
        #expect(f.app.json(approved)["status"] as? String == "approved")
        #expect(f.app.json(approved)["decision"] as? String == "approved")
        let types = try Self.simulatedEvents(f, id)
        #expect(types == ["verification.created", "verification.signed_in"]
            + Array(repeating: "verification.step_completed", count: 5) + ["verification.submitted", "verification.approved"])
        #expect((f.events(id)[1]["data"] as? [String: Any])?["method"] as? String == "handoff")
        // The steps were completed in the workflow's order.
        #expect(f.events(id)[2...6].map { ($0["data"] as? [String: Any])?["step"] as? String }
            == ["profile", "selfie", "shop", "document", "digilocker"])
    }

    @Test(arguments: Store.allCases)
    func completeSteps_signsInFirst_thenReject(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create(f.test)
        let completed = f.action(id, "complete_steps")
        Self.answersAsGET(f, completed, id)
        Self.everyStepFilled(f.app.json(completed))
        #expect(try Self.simulatedEvents(f, id).prefix(3) == ["verification.created", "verification.signed_in", "verification.step_completed"])
        // The profile holds the sample person, DigiLocker the simulator's documents, masked.
        let steps = f.app.json(completed)["steps"] as? [[String: Any]] ?? []
        let profile = (steps.first { $0["id"] as? String == "profile" }?["artifacts"] as? [String])?.first ?? ""
        let form = f.app.json(f.app.request("GET", "/v1/verifications/\(id)/artifacts/\(profile)", headers: f.test))
        #expect(form["full_name"] as? String == "Asha Verma" && form["date_of_birth"] as? String == "1990-08-15")
        let aadhaar = (steps.first { $0["id"] as? String == "digilocker" }?["artifacts"] as? [String])?.first ?? ""
        let document = f.app.json(f.app.request("GET", "/v1/verifications/\(id)/artifacts/\(aadhaar)", headers: f.test))
        #expect(document["document"] as? String == "aadhaar" && document["number_masked"] as? String == "XXXX XXXX 7058")
        Self.answersAsGET(f, f.action(id, "submit"), id)
        let rejected = f.action(id, "reject", #","reason":"suspected_fraud""#)
        Self.answersAsGET(f, rejected, id)
        #expect(f.app.json(rejected)["status"] as? String == "rejected")
        let last = try #require(f.events(id).last)
        #expect(last["type"] as? String == "verification.rejected")
        #expect((last["data"] as? [String: Any])?["reason"] as? String == "suspected_fraud")
        _ = try Self.simulatedEvents(f, id)
    }

    @Test(arguments: Store.allCases)
    func requestResubmission_thenCompleteSteps_andSubmitAgain(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.create(f.test)
        #expect(f.action(id, "complete_steps").status == 200)
        #expect(f.action(id, "submit").status == 200)
        let reopened = f.action(id, "request_resubmission", #","steps":["selfie","shop"],"reason":"photo_unclear","message":"Brighter, please.""#)
        // The store does not write a resubmission's new `expires_at` (VerificationStore.update's
        // UPDATE leaves the column out, for the API's resubmission call too): the answer shows the
        // new time, a read the old one. Everything else is the same.
        Self.answersAsGET(f, reopened, id, ignoring: ["expires_at"])
        let waiting = f.app.json(reopened)
        #expect(waiting["status"] as? String == "resubmission_requested")
        #expect(waiting["resubmissions"] as? Int == 1)
        let pending = (waiting["steps"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "pending" }.map { $0["id"] as? String }
        #expect(pending == ["selfie", "shop"])
        let redone = f.action(id, "complete_steps")
        Self.answersAsGET(f, redone, id)
        Self.everyStepFilled(f.app.json(redone))
        let submitted = f.action(id, "submit")
        Self.answersAsGET(f, submitted, id)
        #expect(f.app.json(submitted)["status"] as? String == "submitted")
        let types = try Self.simulatedEvents(f, id)
        #expect(types.suffix(4) == ["verification.resubmission_requested", "verification.step_completed", "verification.step_completed",
                                    "verification.submitted"])
        // No sign-in again: the user had signed in before the request.
        #expect(types.filter { $0 == "verification.signed_in" }.count == 1)
    }

    @Test(arguments: Store.allCases)
    func expire_andSignInAlone(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let fresh = f.create(f.test, user: "never")
        let expired = f.action(fresh, "expire")
        Self.answersAsGET(f, expired, fresh)
        #expect(f.app.json(expired)["status"] as? String == "expired")
        #expect(f.app.json(expired)["expired_reason"] as? String == "not_started")
        let started = f.create(f.test, user: "started")
        #expect(f.action(started, "sign_in").status == 200)
        let abandoned = f.app.json(f.action(started, "expire"))
        #expect(abandoned["status"] as? String == "expired" && abandoned["expired_reason"] as? String == "abandoned")
        #expect(try Self.simulatedEvents(f, started) == ["verification.created", "verification.signed_in", "verification.expired"])
    }

    @Test(arguments: Store.allCases)
    func simulatedEventsQueueWebhooksForTestEndpointsOnly(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let testEndpoint = f.app.json(f.app.request("POST", "/v1/webhook_endpoints", headers: f.test,
                                                    body: #"{"url":"http://hooks.test:9/in"}"#))["id"] as? String ?? ""
        let liveEndpoint = f.app.json(f.app.request("POST", "/v1/webhook_endpoints", headers: f.live,
                                                    body: #"{"url":"http://hooks.test:9/in"}"#))["id"] as? String ?? ""
        #expect(testEndpoint.hasPrefix("we_") && liveEndpoint.hasPrefix("we_"))
        let id = f.create(f.test)
        for action in ["complete_steps", "submit", "approve"] { #expect(f.action(id, action).status == 200) }
        let rows = try f.app.application.database.query("""
            SELECT d.endpoint_id, d.event_type, d.payload FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
            WHERE e.verification_id = \(id)
            """)
        let queued = try rows.map { (endpoint: try $0.string("endpoint_id"), type: try $0.string("event_type"), payload: try $0.string("payload")) }
        #expect(queued.allSatisfy { $0.endpoint == testEndpoint }, "a live endpoint got a test event")
        let simulated = queued.filter { $0.type != "verification.created" }
        #expect(Set(simulated.map(\.type)) == ["verification.signed_in", "verification.step_completed", "verification.submitted",
                                               "verification.approved"])
        #expect(simulated.count == 8)
        // The message is the thin event notice (its event, with `data.simulated`, is read by id).
        for message in queued {
            let body = try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
            #expect((body["data"] as? [String: Any])?["livemode"] as? Bool == false, "\(message.payload)")
        }
    }
}
