import Foundation
import HostedApp
import HostedHTTP
import HostedTestSupport
import Testing

/// Where a premises photo was taken (issue 39): only for a step that asks (`"location": "ask"`),
/// all three numbers within range or nothing stored, shown on the capture in the API and erased by
/// redaction; the journey state tells the page what each photo step asks for. Both stores.
@Suite struct CaptureLocationTests {
    struct Fixture: JourneyFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let id: String
        let cookie: String

        init(_ store: Store) throws {
            app = try TestApplication(store: store)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            let workflow = app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"selfie","quality":"require"},
                 {"type":"premises_photos","id":"shop","min":1,"max":3,"location":"ask"},
                 {"type":"premises_photos","id":"back","min":1,"max":1}]}
                """#)
            #expect(workflow.status == 201)
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            cookie = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }
        var journeySession: String? { cookie }

        func upload(_ step: String, query: String = "") -> Response {
            journey("POST", "/api/steps/\(step)/images\(query)", body: JourneyStepTests.photo, contentType: "image/jpeg")
        }

        func captures(_ step: String) -> [[String: Any]] {
            let steps = json(get("/v1/verifications/\(id)"))["steps"] as? [[String: Any]] ?? []
            return steps.first { $0["id"] as? String == step }?["captures"] as? [[String: Any]] ?? []
        }

        func artifactCount() throws -> Int {
            Int(try app.application.database.query("SELECT count(*) AS n FROM artifacts")[0].int("n"))
        }
    }

    @Test(arguments: Store.allCases)
    func upload_201_keepsTheLocation_onAStepThatAsks(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        #expect(f.upload("shop", query: "?latitude=19.0760123456&longitude=72.8777&accuracy_m=35.4").status == 201)
        #expect(f.upload("shop").status == 201) // refused in the browser's prompt: never blocks
        let captures = f.captures("shop")
        #expect(captures.count == 2)
        let location = try #require(captures.first?["location"] as? [String: Any])
        #expect(location["latitude"] as? Double == 19.076012)
        #expect(location["longitude"] as? Double == 72.8777)
        #expect(location["accuracy_m"] as? Double == 35)
        #expect(captures.last?["location"] == nil)
        #expect(captures.allSatisfy { ($0["width"] as? Int ?? 0) > 0 && ($0["height"] as? Int ?? 0) > 0 })
    }

    @Test(arguments: Store.allCases)
    func upload_422_storesNothing_forABadOrUnaskedLocation(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let refused = [
            ("shop", "?latitude=19.07&longitude=72.87"), // not all three
            ("shop", "?latitude=91&longitude=72.87&accuracy_m=10"),
            ("shop", "?latitude=19&longitude=-181&accuracy_m=10"),
            ("shop", "?latitude=19&longitude=72&accuracy_m=100001"),
            ("shop", "?latitude=nan&longitude=72&accuracy_m=10"),
            ("shop", "?latitude=1e999&longitude=72&accuracy_m=10"),
            ("shop", "?latitude=19&longitude=72&accuracy_m=10&altitude=5"), // unknown parameter
            ("back", "?latitude=19&longitude=72&accuracy_m=10"), // this step does not ask
            ("selfie", "?latitude=19&longitude=72&accuracy_m=10"),
        ]
        for (step, query) in refused {
            let response = f.upload(step, query: query)
            #expect(response.status == 422, "\(step)\(query)")
            #expect(response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true)
        }
        #expect(try f.artifactCount() == 0)
        #expect(f.captures("shop").isEmpty && f.captures("back").isEmpty)
    }

    @Test(arguments: Store.allCases)
    func redaction_erasesTheLocation(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        #expect(f.upload("shop", query: "?latitude=19.0761&longitude=72.8777&accuracy_m=20").status == 201)
        #expect(f.post("/v1/verifications/\(f.id)/cancel", "{}").status == 200)
        #expect(f.post("/v1/verifications/\(f.id)/redact", "{}").status == 200)
        #expect(f.captures("shop").allSatisfy { $0["location"] == nil })
        let steps = try f.app.application.database.query("SELECT steps FROM verifications")
        #expect(!steps.isEmpty && steps.allSatisfy { !((try? $0.string("steps")) ?? "").contains("72.8777") })
    }

    /// What the page needs to run a photo step: the quality mode, the location ask, the uploads so
    /// far, from which one a failing photo may be kept, and each current photo's verdict.
    @Test(arguments: Store.allCases)
    func journeyState_200_tellsThePageEachPhotoStepsRules(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let uploaded = f.json(f.upload("selfie"))
        let artifact = try #require(uploaded["artifact_id"] as? String)
        let steps = f.json(f.journey("GET", "/api/state"))["steps"] as? [[String: Any]] ?? []
        let selfie = try #require(steps.first { $0["id"] as? String == "selfie" })
        #expect(selfie["quality"] as? String == "require")
        #expect(selfie["attempts"] as? Int == 1)
        #expect(selfie["keep_anyway_from"] as? Int == 3)
        let captures = try #require(selfie["captures"] as? [[String: Any]])
        #expect(captures.count == 1 && captures[0]["id"] as? String == artifact)
        // JourneyStepTests.photo is a flat grey square: no face, and it says so.
        #expect(captures[0]["passed"] as? Bool == false)
        #expect((captures[0]["reasons"] as? [String])?.contains("no_face") == true)
        let shop = try #require(steps.first { $0["id"] as? String == "shop" })
        #expect(shop["location"] as? String == "ask" && shop["quality"] as? String == "guide")
        #expect(steps.first { $0["id"] as? String == "back" }?["location"] == nil)
        // A retake leaves the page's list of current verdicts.
        #expect(f.journey("DELETE", "/api/steps/selfie/images/\(artifact)").status == 204)
        let after = f.json(f.journey("GET", "/api/state"))["steps"] as? [[String: Any]] ?? []
        #expect((after.first { $0["id"] as? String == "selfie" }?["captures"] as? [[String: Any]])?.isEmpty == true)
    }
}
