import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedTestSupport
import Testing

/// What a simulation refuses, on both stores: an action the status machine does not allow in the
/// verification's state (409 with the machine's own code), a live key (403 `test_mode_only`, in
/// the header phase), another mode's or account's verification (404), a bad body (422, 400 for
/// one that is no JSON) — each leaving the verification and its events exactly as they were.
extension SimulateTests {
    /// The verification's JSON and its event count: what "nothing changed" compares.
    static func snapshot(_ f: Fixture, _ id: String) -> (body: [UInt8], events: Int) {
        (f.verification(id).body, f.events(id).count)
    }

    /// A test verification brought to `state` by simulations.
    static func verification(in state: String, _ f: Fixture) -> String {
        let id = f.create(f.test, user: "user-\(state)")
        let actions: [String] = switch state {
        case "in_progress": ["sign_in"]
        case "submitted": ["complete_steps", "submit"]
        case "approved": ["complete_steps", "submit", "approve"]
        case "expired": ["expire"]
        default: []
        }
        for action in actions { #expect(f.action(id, action).status == 200, "\(state): \(action)") }
        return id
    }

    static let impossible: [(state: String, action: String, extra: String, code: String)] = [
        ("created", "approve", "", "verification_not_submitted"),
        ("created", "reject", #","reason":"other""#, "verification_not_submitted"),
        ("created", "request_resubmission", #","steps":["selfie"],"reason":"other""#, "verification_not_submitted"),
        ("created", "submit", "", "steps_incomplete"),
        ("in_progress", "submit", "", "steps_incomplete"),
        ("in_progress", "approve", "", "verification_not_submitted"),
        ("submitted", "complete_steps", "", "verification_closed"),
        ("submitted", "expire", "", "verification_closed"),
        ("approved", "sign_in", "", "verification_closed"),
        ("approved", "complete_steps", "", "verification_closed"),
        ("approved", "submit", "", "verification_closed"),
        ("approved", "approve", "", "verification_not_submitted"),
        ("approved", "reject", #","reason":"other""#, "verification_not_submitted"),
        ("approved", "request_resubmission", #","steps":["selfie"],"reason":"other""#, "verification_not_submitted"),
        ("approved", "expire", "", "verification_closed"),
        ("expired", "sign_in", "", "verification_closed"),
        ("expired", "complete_steps", "", "verification_closed"),
        ("expired", "submit", "", "verification_closed"),
        ("expired", "approve", "", "verification_not_submitted"),
    ]

    @Test(arguments: Store.allCases)
    func everyImpossibleTransition_409WithTheMachinesCode_andNothingChanged(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        var made: [String: String] = [:]
        for state in ["created", "in_progress", "submitted", "approved", "expired"] { made[state] = Self.verification(in: state, f) }
        for (state, action, extra, code) in Self.impossible {
            let id = made[state] ?? ""
            let before = Self.snapshot(f, id)
            let refused = f.action(id, action, extra)
            #expect(refused.status == 409, "\(state) \(action): \(String(decoding: refused.body, as: UTF8.self))")
            #expect(f.app.code(refused) == code, "\(state) \(action)")
            #expect(refused.headers["Content-Type"] == "application/problem+json")
            let after = Self.snapshot(f, id)
            #expect(after.body == before.body, "\(state) \(action) changed the verification")
            #expect(after.events == before.events, "\(state) \(action) recorded an event")
        }
        #expect(try EventStoreAudit.verify(f.app))
    }

    @Test(arguments: Store.allCases)
    func aLiveKey_403TestModeOnly_beforeTheBodyIsRead(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let liveID = f.create(f.live)
        let testID = f.create(f.test)
        let path = "/v1/test_helpers/verifications/\(liveID)/simulate"
        // Refused in the header phase: the body is never read.
        #expect(f.app.admit("POST", path, headers: f.live) == 403)
        #expect(f.app.admit("POST", "/v1/test_helpers/verifications/\(testID)/simulate", headers: f.test) == nil)
        for (id, body) in [(liveID, #"{"action":"approve"}"#), (testID, #"{"action":"sign_in"}"#), (liveID, "not json"), (liveID, "")] {
            let before = Self.snapshot(f, id)
            let refused = f.simulate(id, body, auth: f.live)
            #expect(refused.status == 403)
            #expect(f.app.code(refused) == "test_mode_only")
            #expect(f.app.request("GET", "/v1/verifications/\(id)", headers: id == liveID ? f.live : f.test).body
                == (id == liveID ? f.app.request("GET", "/v1/verifications/\(id)", headers: f.live).body : before.body))
        }
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(liveID)", headers: f.live))["status"] as? String == "created")
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(liveID)/events", headers: f.live))["data"]
            .map { ($0 as? [Any])?.count } == 1)
        // No key at all: 401, as for the rest of the API.
        #expect(f.simulate(testID, #"{"action":"sign_in"}"#, auth: []).status == 401)
    }

    @Test(arguments: Store.allCases)
    func anotherModesOrAccountsVerification_404(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let liveID = f.create(f.live)
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let otherLive = [("Authorization", "Bearer \(other.secret.value)")]
        let otherTest = [("Authorization", "Bearer \(f.app.json(f.app.request("POST", "/v1/api_keys", headers: otherLive, body: #"{"mode":"test"}"#))["secret"] as? String ?? "")")]
        #expect(f.app.request("POST", "/v1/workflows", headers: otherLive,
                              body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}]}"#).status == 201)
        let othersID = f.app.json(f.app.request("POST", "/v1/verifications", headers: otherTest,
                                                body: #"{"user_id":"u","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        #expect(othersID.hasPrefix("ver_"))
        for action in ["sign_in", "complete_steps", "expire"] {
            for id in [liveID, othersID, "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa"] {
                let refused = f.action(id, action)
                #expect(refused.status == 404, "\(action) \(id)")
                #expect(f.app.code(refused) == "not_found")
            }
        }
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(liveID)", headers: f.live))["status"] as? String == "created")
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(othersID)", headers: otherTest))["status"] as? String == "created")
    }

    static let badBodies: [(body: String, field: String)] = [
        ("{}", "action"),
        (#"{"action":"dance"}"#, "action"),
        (#"{"action":1}"#, "action"),
        (#"{"action":["approve"]}"#, "action"),
        (#"{"action":"approve","extra":1}"#, "extra"),
        (#"{"action":"approve","reason":"other"}"#, "reason"),
        (#"{"action":"sign_in","steps":["selfie"]}"#, "steps"),
        (#"{"action":"reject"}"#, "reason"),
        (#"{"action":"reject","reason":"because"}"#, "reason"),
        (#"{"action":"reject","reason":7}"#, "reason"),
        (#"{"action":"request_resubmission","reason":"other"}"#, "steps"),
        (#"{"action":"request_resubmission","steps":"selfie","reason":"other"}"#, "steps"),
        (#"{"action":"request_resubmission","steps":["selfie"],"reason":"blurry"}"#, "reason"),
        (#"{"action":"request_resubmission","steps":["selfie"],"reason":"other","message":3}"#, "message"),
        (#"{"action":"request_resubmission","steps":["nope"],"reason":"other"}"#, "steps"),
    ]

    @Test(arguments: Store.allCases)
    func badBodies_422WithFieldErrors_andNothingChanged(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = Self.verification(in: "submitted", f)
        let before = Self.snapshot(f, id)
        for (body, field) in Self.badBodies {
            let refused = f.simulate(id, body)
            #expect(refused.status == 422, "\(body): \(String(decoding: refused.body, as: UTF8.self))")
            let errors = f.app.json(refused)["errors"] as? [[String: Any]] ?? []
            #expect(errors.contains { $0["field"] as? String == field }, "\(body): \(errors)")
        }
        // Not JSON at all, or a member named twice: 400, as everywhere in the API.
        for body in ["{", "[]", #"{"action":"approve","action":"reject"}"#] { #expect(f.simulate(id, body).status == 400, "\(body)") }
        let after = Self.snapshot(f, id)
        #expect(after.body == before.body && after.events == before.events)
    }
}
