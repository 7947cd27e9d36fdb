import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedTestSupport
import Testing

/// The lifecycle through the customer API, on SQLite and PostgreSQL: the event lists, expiry
/// shown on read, redaction, the workflow's lifecycle options.
@Suite struct LifecycleAPITests {
    typealias Fixture = CustomerAPITests.Fixture

    func events(_ f: Fixture, _ path: String) throws -> [[String: Any]] {
        let response = f.get(path)
        #expect(response.status == 200, "\(path): \(response.status)")
        return try #require(f.json(response)["data"] as? [[String: Any]])
    }

    @Test(arguments: Store.allCases)
    func everyAPIChangeIsAnEventWithTheKeyAsActor(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        #expect(f.create().status == 200)  // the idempotent repeat changes nothing
        #expect(f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth, body: #"{"metadata":{"order":"7"}}"#).status == 200)
        #expect(f.post("/v1/verifications/\(id)/handoffs", "{}").status == 201)
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)  // a repeat: no event
        let list = try events(f, "/v1/verifications/\(id)/events")
        #expect(list.map { $0["type"] as? String } == ["verification.created", "verification.updated",
                                                        "verification.handoff_created", "verification.canceled"])
        #expect(list.map { $0["sequence"] as? Int } == [1, 2, 3, 4])
        for event in list {
            let actor = try #require(event["actor"] as? [String: Any])
            #expect(actor["type"] as? String == "api_key")
            #expect((actor["id"] as? String)?.hasPrefix("key_") == true)
        }
        #expect((list[1]["data"] as? [String: String]) == ["fields": "metadata"])
        // The feed: filtered by type, paged by cursor, oldest first.
        f.clock.advance(by: 1)  // the feed is by time, then verification id and sequence
        let other = try #require(f.json(f.create(user: "user-2"))["id"] as? String)
        let created = try events(f, "/v1/events?type=verification.created")
        #expect(created.map { $0["verification_id"] as? String } == [id, other])
        let first = try events(f, "/v1/events?limit=1")
        let cursor = try #require(first.first?["id"] as? String)
        let rest = try events(f, "/v1/events?starting_after=\(cursor)&limit=100")
        #expect(rest.count == 4)
        #expect(f.get("/v1/events?type=verification.nonsense").status == 422)
        #expect(f.get("/v1/events?starting_after=evt_aaaaaaaaaaaaaaaaaaaaaaaaaa").status == 422)
        #expect(f.get("/v1/events?colour=red").status == 422)
        #expect(f.get("/v1/verifications/ver_aaaaaaaaaaaaaaaaaaaaaaaaaa/events").status == 404)
    }

    @Test(arguments: Store.allCases)
    func aVerificationPastItsTimeIsShownExpiredAndANewCreateMakesANewOne(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.post("/v1/workflows", #"{"key":"short","name":"Short","steps":[{"type":"selfie"}],"expires_after_seconds":3600}"#).status == 201)
        let created = f.json(f.post("/v1/verifications", #"{"user_id":"u","workflow":"short","mobile":"+919876543210"}"#))
        let id = try #require(created["id"] as? String)
        #expect(created["expires_at"] as? String == RFC3339.format(f.clock.now().addingTimeInterval(3600)))
        #expect(created["expired_reason"] is NSNull)
        f.clock.advance(by: 3600)
        let read = f.json(f.get("/v1/verifications/\(id)"))
        #expect(read["status"] as? String == "expired")
        #expect(read["expired_reason"] as? String == "not_started")
        let listed = try events(f, "/v1/verifications?workflow=short")
        #expect(listed.first?["status"] as? String == "expired")
        let expired = try events(f, "/v1/events?type=verification.expired")
        #expect(expired.count == 1)
        #expect((expired.first?["actor"] as? [String: Any])?["type"] as? String == "system")
        #expect(f.post("/v1/verifications/\(id)/handoffs", "{}").status == 409)
        let again = f.post("/v1/verifications", #"{"user_id":"u","workflow":"short","mobile":"+919876543210"}"#)
        #expect(again.status == 201)
        #expect(f.json(again)["id"] as? String != id)
    }

    @Test(arguments: Store.allCases)
    func redactionErasesThePersonalFieldsOnceAndOnlyWhenTerminal(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create(extra: #","metadata":{"order":"42"}"#))["id"] as? String)
        let open = f.post("/v1/verifications/\(id)/redact", "")
        #expect(open.status == 409)
        #expect(f.code(open) == "verification_not_terminal")
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)
        let redacted = f.post("/v1/verifications/\(id)/redact", "")
        #expect(redacted.status == 200)
        let body = f.json(redacted)
        #expect(body["user_id"] is NSNull && body["mobile_last4"] is NSNull)
        #expect((body["metadata"] as? [String: Any])?.isEmpty == true)
        #expect(body["redacted_at"] as? String != nil)
        #expect(f.post("/v1/verifications/\(id)/redact", "").status == 200)
        let list = try events(f, "/v1/verifications/\(id)/events")
        #expect(list.filter { $0["type"] as? String == "verification.redacted" }.count == 1)
        // The user's id is gone from the list filter too.
        #expect(try events(f, "/v1/verifications?user_id=user-1").isEmpty)
        #expect(f.post("/v1/verifications/\(id)/redact", #"{"now":true}"#).status == 422)
    }

    @Test(arguments: Store.allCases)
    func theWorkflowsLifecycleOptionsAreCheckedAndShown(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let made = f.post("/v1/workflows", #"{"key":"kept","name":"Kept","steps":[{"type":"selfie"}],"expires_after_seconds":7200,"retention":{"redact_after_seconds":86400}}"#)
        #expect(made.status == 201)
        #expect(f.json(made)["expires_after_seconds"] as? Int == 7200)
        #expect((f.json(made)["retention"] as? [String: Int]) == ["redact_after_seconds": 86400])
        #expect(f.json(f.post("/v1/workflows", #"{"key":"plain","name":"P","steps":[{"type":"selfie"}]}"#))["expires_after_seconds"] as? Int == 604_800)
        for bad in [#""expires_after_seconds":1"#, #""expires_after_seconds":99999999999999999999"#,
                    #""retention":{"redact_after_seconds":60}"#, #""retention":{"days":3}"#, #""retention":5"#] {
            let response = f.post("/v1/workflows", #"{"key":"bad","name":"B","steps":[{"type":"selfie"}],\#(bad)}"#)
            #expect(response.status == 422, "\(bad)")
        }
        #expect(f.get("/v1/workflows/bad").status == 404)  // nothing stored from a bad request
    }
}
