import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedTestSupport
import Testing

/// Simulations on other workflows, both stores: a form alone (nothing to decode, the answer at
/// once), a premises step the person had begun (topped up to its `min` with samples that are no
/// near copy of the person's photo), and four eyes (the account's keys are one reviewer).
extension SimulateTests {
    @Test(arguments: Store.allCases)
    func completeSteps_aFormAlone_andAStepThePersonBegan(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.app.request("POST", "/v1/workflows", headers: f.live,
                              body: #"{"key":"form","name":"Form","steps":[{"type":"profile"}]}"#).status == 201)
        #expect(f.app.request("POST", "/v1/workflows", headers: f.live, body: #"""
            {"key":"shop","name":"Shop","steps":[{"type":"premises_photos","id":"shop","min":3,"max":4,"quality":"require"}]}
            """#).status == 201)
        let form = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.test,
                                            body: #"{"user_id":"f","workflow":"form","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let filled = f.action(form, "complete_steps")
        Self.answersAsGET(f, filled, form)
        #expect((f.app.json(filled)["steps"] as? [[String: Any]])?.map { $0["status"] as? String } == ["completed"])

        let shop = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.test,
                                            body: #"{"user_id":"s","workflow":"shop","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        // The person signs in and uploads one photo of their own (a sample again, to be sure it
        // is one the helper would otherwise pick first), without completing the step.
        let session = f.app.journeySession(verificationID: shop, auth: f.test)
        let own = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("public/samples/premises-1.jpg"))
        #expect(f.app.journey("POST", shop, "/api/steps/shop/images", body: Array(own), contentType: "image/jpeg", session: session).status == 201)
        let topped = f.action(shop, "complete_steps")
        Self.answersAsGET(f, topped, shop)
        let step = try #require((f.app.json(topped)["steps"] as? [[String: Any]])?.first)
        #expect(step["status"] as? String == "completed")
        let captures = step["captures"] as? [[String: Any]] ?? []
        #expect(captures.count == 3)
        #expect(captures.allSatisfy { ($0["quality"] as? [String: Any])?["passed"] as? Bool == true }, "\(captures)")
        // The person's own sign-in and upload were the journey's; only the completion is simulated.
        let types = try Self.simulatedEvents(f, shop, personal: ["verification.handoff_created", "verification.signed_in"])
        #expect(types == ["verification.created", "verification.handoff_created", "verification.signed_in", "verification.step_completed"])
    }

    @Test(arguments: Store.allCases)
    func fourEyes_theAccountsKeysAreOneReviewer(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.app.request("POST", "/v1/workflows", headers: f.live, body: #"""
            {"key":"pair","name":"Pair","steps":[{"type":"profile"}],"review":{"approvals_required":2}}
            """#).status == 201)
        let id = f.app.json(f.app.request("POST", "/v1/verifications", headers: f.test,
                                          body: #"{"user_id":"p","workflow":"pair","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        #expect(f.action(id, "complete_steps").status == 200)
        #expect(f.action(id, "submit").status == 200)
        let first = f.action(id, "approve")
        Self.answersAsGET(f, first, id)
        #expect(f.app.json(first)["status"] as? String == "submitted")
        let before = Self.snapshot(f, id)
        let second = f.action(id, "approve")
        #expect(second.status == 409 && f.app.code(second) == "approval_already_recorded")
        let after = Self.snapshot(f, id)
        #expect(after.body == before.body && after.events == before.events)
        #expect(try Self.simulatedEvents(f, id).last == "verification.review_note")
    }
}
