import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedImaging
import HostedStorage
import HostedTestSupport
import Testing

/// The journey's steps, uploads, submit and decision through the application, on both stores.
@Suite struct JourneyStepTests {
    /// A real JPEG (as the page sends): libvips' encoding of a generated PNG.
    static let photo: [UInt8] = (try? VipsImageNormalizer().normalize(TestImages.photoPNG(width: 80, height: 60)).bytes) ?? []

    /// A signed-in journey on a workflow with every image step kind and a profile.
    struct Fixture: JourneyFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let id: String
        let cookie: String

        init(_ store: Store, returnURL: String? = "https://app.example.com/done?src=app",
             configure: (inout Configuration) -> Void = { _ in }) throws {
            app = try TestApplication(store: store, configure: configure)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            _ = app.request("POST", "/v1/return_urls", headers: auth, body: #"{"url":"https://app.example.com/done?src=app"}"#)
            _ = app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"full","name":"Full","steps":[{"type":"profile"},{"type":"selfie"},
                 {"type":"premises_photos","id":"shop","min":2,"max":3},{"type":"document"}]}
                """#)
            let body = returnURL.map { #","return_url":"\#($0)""# } ?? ""
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"full","mobile":"+919876543210"\#(body)}"#))["id"] as? String ?? ""
            cookie = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }
        var journeySession: String? { cookie }

        func upload(_ step: String, _ bytes: [UInt8]) -> Response {
            journey("POST", "/api/steps/\(step)/images", body: bytes, contentType: "image/jpeg")
        }

        func artifactCount() throws -> Int {
            Int(try app.application.database.query("SELECT count(*) AS n FROM artifacts")[0].int("n"))
        }

        func verification() -> [String: Any] { json(get("/v1/verifications/\(id)")) }

        /// Completes every step.
        func completeAll() {
            _ = journey("POST", "/api/steps/profile/profile", body: #"{"full_name":"Asha Rao","date_of_birth":"1990-04-01"}"#)
            _ = upload("selfie", JourneyStepTests.photo)
            _ = journey("POST", "/api/steps/selfie/complete")
            _ = upload("shop", JourneyStepTests.photo)
            _ = upload("shop", TestImages.photoPNG())
            _ = journey("POST", "/api/steps/shop/complete")
            _ = upload("document", JourneyStepTests.photo)
            _ = journey("POST", "/api/steps/document/complete")
        }

        func close() { app.close() }
    }

    @Test(arguments: Store.allCases)
    func profile_422_thenCompletesWithAStoredForm(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let bad = f.journey("POST", "/api/steps/profile/profile", body: #"{"full_name":"","date_of_birth":"2999-01-01"}"#)
        #expect(bad.status == 422)
        #expect(Set((f.json(bad)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] }) == ["full_name", "date_of_birth"])
        #expect(try f.artifactCount() == 0)
        let good = f.journey("POST", "/api/steps/profile/profile", body: #"{"full_name":"Asha Rao","date_of_birth":"1990-04-01"}"#)
        #expect(good.status == 200)
        let step = try #require((f.json(good)["steps"] as? [[String: Any]])?.first)
        #expect(step["status"] as? String == "completed")
        let artifact = try #require((step["artifacts"] as? [String])?.first)
        let download = f.app.request("GET", "/v1/verifications/\(f.id)/artifacts/\(artifact)", headers: f.auth)
        #expect(download.status == 200)
        #expect(download.headers["Content-Type"] == "application/json")
        #expect(f.json(download) as NSDictionary == ["full_name": "Asha Rao", "date_of_birth": "1990-04-01"] as NSDictionary)
        #expect(f.journey("POST", "/api/steps/profile/profile", body: #"{"full_name":"B","date_of_birth":"1990-04-01"}"#).status == 409)
    }

    @Test(arguments: Store.allCases)
    func hostileUploads_areRefused_andStoreNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let text = f.upload("selfie", Array("not really a jpeg".utf8))
        #expect(text.status == 422)
        #expect(f.code(text) == "image_invalid")
        #expect(f.upload("nonexistent", JourneyStepTests.photo).status == 404)
        #expect(f.upload("profile", JourneyStepTests.photo).status == 404)
        #expect(f.upload("selfie", TestImages.pngHeader(width: 9000, height: 9000)).status == 422)
        #expect(try f.artifactCount() == 0)
        #expect(f.upload("selfie", JourneyStepTests.photo).status == 201)
        let second = f.upload("selfie", JourneyStepTests.photo)
        #expect(second.status == 409)
        #expect(f.code(second) == "too_many_images")
        #expect(try f.artifactCount() == 1)
        // The route refuses bodies over 8 MB before reading them (checked live in the e2e suite).
        let limit = f.app.application.routeTable.contains { $0.pattern == "/j/{id}/api/steps/{step}/images" }
        #expect(limit)
    }

    /// Every decode thread busy and no room to wait: the upload is turned away at once with a
    /// retry hint, and nothing is stored.
    @Test(arguments: Store.allCases)
    func uploadImage_503_whenTheDecodeQueueIsFull(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store) { $0.decodeQueueCapacity = 0 }
        defer { f.close() }
        let refused = f.upload("selfie", JourneyStepTests.photo)
        #expect(refused.status == 503)
        #expect(f.code(refused) == "server_busy")
        #expect(refused.headers["Retry-After"] == "2")
        #expect(try f.artifactCount() == 0)
    }

    @Test(arguments: Store.allCases)
    func images_retake_complete_andDownload(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let first = try #require(f.json(f.upload("shop", JourneyStepTests.photo))["artifact_id"] as? String)
        let early = f.journey("POST", "/api/steps/shop/complete")
        #expect(early.status == 422)
        #expect(f.code(early) == "step_incomplete")
        #expect(f.journey("DELETE", "/api/steps/shop/images/\(first)").status == 204)
        #expect(f.journey("DELETE", "/api/steps/shop/images/\(first)").status == 404)
        let png = TestImages.photoPNG()
        let kept = try #require(f.json(f.upload("shop", png))["artifact_id"] as? String)
        #expect(f.json(f.upload("shop", JourneyStepTests.photo))["count"] as? Int == 2)
        #expect(f.journey("POST", "/api/steps/shop/complete").status == 200)
        #expect(f.upload("shop", JourneyStepTests.photo).status == 409)

        let steps = try #require(f.verification()["steps"] as? [[String: Any]])
        let shop = try #require(steps.first { $0["id"] as? String == "shop" })
        #expect(shop["status"] as? String == "completed")
        #expect(shop["completed_at"] is String)
        #expect((shop["artifacts"] as? [String])?.first == kept)
        let download = f.app.request("GET", "/v1/verifications/\(f.id)/artifacts/\(kept)", headers: f.auth)
        #expect(download.status == 200)
        // Stored as a fresh JPEG of the PNG's pixels, never the uploaded bytes.
        #expect(download.body != png)
        #expect(download.body.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(download.headers["Content-Type"] == "image/jpeg")
        #expect(download.headers["Content-Disposition"] == "attachment; filename=\"\(kept).jpg\"")
        #expect(download.headers["X-Content-Type-Options"] == "nosniff")
        let other = try f.app.application.accounts.createAccount(name: "Other")
        #expect(f.app.request("GET", "/v1/verifications/\(f.id)/artifacts/\(kept)",
                              headers: [("Authorization", "Bearer \(other.secret.value)")]).status == 404)
        // The retaken photo stays for the reviewer, superseded (issue 39), until redaction.
        #expect(f.app.request("GET", "/v1/verifications/\(f.id)/artifacts/\(first)", headers: f.auth).status == 200)
        let captures = try #require(shop["captures"] as? [[String: Any]])
        #expect(captures.filter { $0["superseded"] as? Bool == true }.map { $0["id"] as? String } == [first])
        #expect(captures.filter { $0["superseded"] as? Bool == false }.compactMap { $0["id"] as? String } == shop["artifacts"] as? [String])
        #expect(captures.allSatisfy { $0["captured_at"] is String && $0["content_type"] as? String == "image/jpeg" })
    }

    @Test(arguments: Store.allCases)
    func submit_409_untilEveryStepIsDone_thenRedirectsWithQuery(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let early = f.journey("POST", "/api/submit")
        #expect(early.status == 409)
        #expect(f.code(early) == "steps_incomplete")
        #expect(f.app.request("GET", "/j/\(f.id)/api/status").status == 401)  // in progress: nothing told
        let before = f.app.request("GET", "/v1/verifications/\(f.id)", headers: f.auth).headers["ETag"]
        f.completeAll()
        let submitted = f.journey("POST", "/api/submit")
        #expect(submitted.status == 200)
        // The signed result follows in the fragment (SignedResultTests).
        #expect((f.json(submitted)["redirect_url"] as? String)?
            .hasPrefix("https://app.example.com/done?src=app&verification_id=\(f.id)&status=submitted#hosted_result=") == true)
        let after = f.app.request("GET", "/v1/verifications/\(f.id)", headers: f.auth)
        #expect(f.json(after)["status"] as? String == "submitted")
        #expect(f.json(after)["submitted_at"] is String)
        #expect(after.headers["ETag"] != before)
        #expect(f.upload("selfie", JourneyStepTests.photo).status == 409)
        // A returning user without a session is told the state, not asked to sign in.
        #expect(f.json(f.app.request("GET", "/j/\(f.id)/api/status"))["status"] as? String == "submitted")
    }

    @Test func submit_withoutReturnURL_hasNoRedirect() throws {
        let f = try Fixture(.sqlite, returnURL: nil)
        defer { f.close() }
        f.completeAll()
        let submitted = f.journey("POST", "/api/submit")
        #expect(submitted.status == 200)
        #expect(f.json(submitted)["redirect_url"] is NSNull)
    }

    @Test(arguments: Store.allCases)
    func decision_onlyFromSubmitted_endsSessions(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let decide = { (body: String) in f.app.request("POST", "/v1/verifications/\(f.id)/decision", headers: f.auth, body: body) }
        let early = decide(#"{"decision":"approved"}"#)
        #expect(early.status == 409)
        #expect(f.code(early) == "verification_not_submitted")
        f.completeAll()
        _ = f.journey("POST", "/api/submit")
        #expect(decide(#"{"decision":"maybe"}"#).status == 422)
        let approved = decide(#"{"decision":"approved","reason":"documents match"}"#)
        #expect(approved.status == 200)
        #expect(f.json(approved)["status"] as? String == "approved")
        #expect(f.json(approved)["decision"] as? String == "approved")
        #expect(f.json(approved)["decision_reason"] as? String == "documents match")
        #expect(f.json(approved)["decided_at"] is String)
        #expect(f.journey("GET", "/api/state").status == 401)
        #expect(f.json(f.app.request("GET", "/j/\(f.id)/api/status"))["status"] as? String == "closed")
        #expect(decide(#"{"decision":"rejected"}"#).status == 409)
    }

    /// Issue 37: the journey link alone told whether the user was approved or rejected.
    @Test(arguments: Store.allCases)
    func journeyStatus_200_saysClosedNotTheDecisionWithoutASession(_ store: Store) throws {
        guard store.isAvailable else { return }
        for decision in ["approved", "rejected"] {
            let f = try Fixture(store)
            defer { f.close() }
            f.completeAll()
            #expect(f.journey("POST", "/api/submit").status == 200)
            #expect(f.app.request("POST", "/v1/verifications/\(f.id)/decision", headers: f.auth,
                                  body: #"{"decision":"\#(decision)"}"#).status == 200)
            // With the user's old cookie (its session ended with the decision) or none at all.
            for response in [f.app.request("GET", "/j/\(f.id)/api/status"), f.journey("GET", "/api/status")] {
                #expect(response.status == 200)
                #expect(f.json(response)["status"] as? String == "closed")
                #expect(!String(decoding: response.body, as: UTF8.self).contains(decision))
            }
        }
    }
}
