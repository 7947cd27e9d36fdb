import Foundation
import HostedApp
import HostedHTTP
import HostedTestSupport
import Testing

/// The capture checks at upload, through the application on both stores: the upload's
/// `quality`, the workflow's `guide`/`require` modes with the third-attempt way out, near
/// duplicates, and the captures in `GET /v1/verifications/{id}` (issue 39). The photos are made
/// from scikit-image's public-domain samples (Tests/HostedImagingTests/Fixtures).
@Suite struct CaptureChecksAPITests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HostedImagingTests/Fixtures/\(name)")
        return Array(try Data(contentsOf: url))
    }

    struct Fixture: JourneyFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let id: String
        let cookie: String

        init(_ store: Store, selfieQuality: String? = nil) throws {
            app = try TestApplication(store: store)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            let quality = selfieQuality.map { #","quality":"\#($0)""# } ?? ""
            let workflow = app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"selfie"\#(quality)},{"type":"premises_photos","id":"shop","min":1,"max":3}]}
                """#)
            #expect(workflow.status == 201)
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            cookie = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }
        var journeySession: String? { cookie }

        func upload(_ step: String, _ bytes: [UInt8]) -> (status: Int, quality: [String: Any], artifact: String) {
            let response = journey("POST", "/api/steps/\(step)/images", body: bytes, contentType: "image/jpeg")
            let body = json(response)
            return (response.status, body["quality"] as? [String: Any] ?? [:], body["artifact_id"] as? String ?? "")
        }

        func retake(_ step: String, _ artifact: String) -> Int {
            journey("DELETE", "/api/steps/\(step)/images/\(artifact)").status
        }

        func complete(_ step: String, keepAnyway: Bool? = nil) -> Response {
            journey("POST", "/api/steps/\(step)/complete", body: keepAnyway.map { #"{"keep_anyway":\#($0)}"# } ?? "")
        }

        func captures(_ step: String) -> [[String: Any]] {
            let steps = json(get("/v1/verifications/\(id)"))["steps"] as? [[String: Any]] ?? []
            return steps.first { $0["id"] as? String == step }?["captures"] as? [[String: Any]] ?? []
        }
    }

    static func reasons(_ quality: [String: Any]) -> [String] { quality["reasons"] as? [String] ?? [] }

    @Test(arguments: Store.allCases)
    func upload_201_saysWhatIsWrong_andAPortraitPasses(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let dark = f.upload("selfie", try Self.fixture("portrait-dark.jpg"))
        #expect(dark.status == 201)
        #expect(dark.quality["passed"] as? Bool == false)
        #expect(Self.reasons(dark.quality).contains("too_dark"))
        #expect(dark.quality["attempt"] as? Int == 1)
        #expect(f.retake("selfie", dark.artifact) == 204)

        let cat = f.upload("selfie", try Self.fixture("cat.jpg"))
        #expect(Self.reasons(cat.quality) == ["no_face"])
        #expect((cat.quality["scores"] as? [String: Any])?["faces"] as? Int == 0)
        #expect(cat.quality["attempt"] as? Int == 2)
        #expect(f.retake("selfie", cat.artifact) == 204)

        let portrait = f.upload("selfie", try Self.fixture("portrait.jpg"))
        #expect(portrait.quality["passed"] as? Bool == true)
        #expect(Self.reasons(portrait.quality).isEmpty)
        #expect(portrait.quality["attempt"] as? Int == 3)
        let face = try #require(portrait.quality["face"] as? [String: Int])
        #expect(face["width"].map { $0 > 0 } == true && face["height"].map { $0 > 0 } == true)
        #expect(f.complete("selfie").status == 200)

        // The API shows every capture, the retaken ones superseded, each with its verdict.
        let captures = f.captures("selfie")
        #expect(captures.count == 3)
        #expect(captures.map { $0["superseded"] as? Bool } == [true, true, false])
        #expect(captures.map { ($0["quality"] as? [String: Any])?["passed"] as? Bool } == [false, false, true])
        #expect(captures.allSatisfy { ($0["quality"] as? [String: Any])?["accepted_by_user"] as? Bool == false })
    }

    @Test(arguments: Store.allCases)
    func guide_keepsAFailingPhoto_flaggedAsTheUsersChoice(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        #expect(f.upload("selfie", try Self.fixture("portrait-blurry.jpg")).quality["passed"] as? Bool == false)
        #expect(f.complete("selfie").status == 200)
        let quality = try #require(f.captures("selfie").first?["quality"] as? [String: Any])
        #expect(Self.reasons(quality).contains("blurry"))
        #expect(quality["accepted_by_user"] as? Bool == true)
    }

    @Test(arguments: Store.allCases)
    func require_409_untilAPhotoPasses_orTheThirdAttemptIsKeptAnyway(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, selfieQuality: "require")
        defer { f.app.close() }
        let dark = try Self.fixture("portrait-dark.jpg")
        let first = f.upload("selfie", dark)
        var refused = f.complete("selfie")
        #expect(refused.status == 409)
        #expect(f.code(refused) == "capture_quality")
        // Keeping it anyway is not offered before the third attempt.
        #expect(f.code(f.complete("selfie", keepAnyway: true)) == "capture_quality")
        #expect(f.retake("selfie", first.artifact) == 204)
        let second = f.upload("selfie", dark)
        #expect(f.retake("selfie", second.artifact) == 204)
        let third = f.upload("selfie", dark)
        #expect(third.quality["attempt"] as? Int == 3)
        refused = f.complete("selfie")
        #expect(refused.status == 409)
        #expect(f.complete("selfie", keepAnyway: true).status == 200)
        let kept = try #require(f.captures("selfie").last?["quality"] as? [String: Any])
        #expect(kept["accepted_by_user"] as? Bool == true)
        #expect(kept["passed"] as? Bool == false)
    }

    @Test(arguments: Store.allCases)
    func require_aPassingPhotoCompletesAtOnce(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, selfieQuality: "require")
        defer { f.app.close() }
        #expect(f.upload("selfie", try Self.fixture("portrait.jpg")).quality["passed"] as? Bool == true)
        #expect(f.complete("selfie").status == 200)
    }

    @Test(arguments: Store.allCases)
    func premises_aNearCopyOfAnotherPhotoOrTheSelfieIsADuplicate(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let portrait = try Self.fixture("portrait.jpg")
        #expect(f.upload("selfie", portrait).quality["passed"] as? Bool == true)
        // The selfie again as a premises photo, and a re-encoded near copy of it.
        #expect(Self.reasons(f.upload("shop", portrait).quality).contains("duplicate_photo"))
        #expect(Self.reasons(f.upload("shop", try Self.fixture("portrait-again.jpg")).quality).contains("duplicate_photo"))
        // Faces are not looked for on premises photos.
        #expect(!Self.reasons(f.upload("shop", try Self.fixture("cat.jpg")).quality).contains("no_face"))
    }

    /// Every photo is kept, so a step's retakes are bounded: the 21st upload is refused and
    /// stores nothing.
    @Test(arguments: Store.allCases)
    func upload_409_pastTheStepsAttempts(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        for attempt in 1...20 {
            let added = f.upload("selfie", JourneyStepTests.photo)
            #expect(added.status == 201 && added.quality["attempt"] as? Int == attempt)
            #expect(f.retake("selfie", added.artifact) == 204)
        }
        let refused = f.journey("POST", "/api/steps/selfie/images", body: JourneyStepTests.photo, contentType: "image/jpeg")
        #expect(refused.status == 409)
        #expect(f.code(refused) == "too_many_images")
        #expect(f.captures("selfie").count == 20)
        #expect(Int(try f.app.application.database.query("SELECT count(*) AS n FROM artifacts")[0].int("n")) == 20)
    }

    @Test(arguments: Store.allCases)
    func workflow_422_forAQualityModeOnAStepWithoutPhotosOrAnUnknownMode(_ store: Store) throws {
        guard store.isAvailable else { return }
        let app = try TestApplication(store: store)
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme")
        let auth = [("Authorization", "Bearer \(created.secret.value)")]
        for steps in [#"[{"type":"profile","quality":"require"}]"#, #"[{"type":"selfie","quality":"strict"}]"#] {
            let refused = app.request("POST", "/v1/workflows", headers: auth, body: #"{"key":"k","name":"K","steps":\#(steps)}"#)
            #expect(refused.status == 422)
            #expect((app.json(refused)["errors"] as? [[String: Any]])?.first?["field"] as? String == "steps[0].quality")
        }
        let accepted = app.request("POST", "/v1/workflows", headers: auth,
                                   body: #"{"key":"k","name":"K","steps":[{"type":"selfie","quality":"require"}]}"#)
        #expect(accepted.status == 201)
        let steps = app.json(accepted)["steps"] as? [[String: Any]]
        #expect(steps?.first?["quality"] as? String == "require")
    }
}
