import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// Test mode (issue 40): a live key and a test key of one account see two separate worlds. Every
/// route that names a verification or a webhook endpoint answers 404 to a key of the other mode,
/// and every list, feed and lookup shows only the caller's mode; workflows and return URLs are
/// shared. Both stores.
@Suite struct TestModeSeparationTests {
    struct Fixture {
        let app: TestApplication
        let live: [(String, String)]
        let test: [(String, String)]
        let accountID: ObjectID

        init(_ store: Store, devMode: Bool = true, clock: any WallClock = SystemWallClock()) throws {
            app = try TestApplication(store: store, clock: clock) { configuration in
                configuration.devMode = devMode
                // The table reads each verification before and after every route: no poll limit in the way.
                configuration.pollBurst = 10_000
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            accountID = created.account.id
            live = [("Authorization", "Bearer \(created.secret.value)")]
            let made = app.request("POST", "/v1/api_keys", headers: live, body: #"{"mode":"test"}"#)
            let secret = app.json(made)["secret"] as? String ?? ""
            test = [("Authorization", "Bearer \(secret)")]
            // Shared by both modes: made once, with the live key.
            _ = app.request("POST", "/v1/workflows", headers: live,
                            body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}]}"#)
            _ = app.request("POST", "/v1/return_urls", headers: live, body: #"{"url":"https://acme.example/done"}"#)
        }

        func create(_ auth: [(String, String)], user: String = "user-1", key: String? = nil) -> Response {
            app.request("POST", "/v1/verifications", headers: auth + (key.map { [("Idempotency-Key", $0)] } ?? []),
                        body: #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#)
        }

        func endpoint(_ auth: [(String, String)]) -> String {
            app.json(app.request("POST", "/v1/webhook_endpoints", headers: auth,
                                 body: #"{"url":"http://127.0.0.1:9/hook"}"#))["id"] as? String ?? ""
        }
    }

    /// Every route of the customer API that names a verification (`{v}`) or an endpoint (`{w}`),
    /// with a body it accepts.
    static let namedRoutes: [(method: String, path: String, body: String)] = [
        ("GET", "/v1/verifications/{v}", ""),
        ("PATCH", "/v1/verifications/{v}", #"{"metadata":{"a":"b"}}"#),
        ("POST", "/v1/verifications/{v}/cancel", "{}"),
        ("POST", "/v1/verifications/{v}/redact", "{}"),
        ("POST", "/v1/verifications/{v}/handoffs", "{}"),
        ("GET", "/v1/verifications/{v}/events", ""),
        ("GET", "/v1/verifications/{v}/artifacts/art_aaaaaaaaaaaaaaaaaaaaaaaaaa", ""),
        ("POST", "/v1/verifications/{v}/decision", #"{"decision":"approved"}"#),
        ("POST", "/v1/verifications/{v}/resubmission", #"{"steps":["profile"],"reason":"other"}"#),
        ("GET", "/v1/webhook_endpoints/{w}", ""),
        ("PATCH", "/v1/webhook_endpoints/{w}", #"{"description":"x"}"#),
        ("DELETE", "/v1/webhook_endpoints/{w}", ""),
        ("POST", "/v1/webhook_endpoints/{w}/rotate_secret", ""),
        ("GET", "/v1/webhook_endpoints/{w}/deliveries", ""),
        ("POST", "/v1/webhook_endpoints/{w}/recover", #"{"since":"2026-01-01T00:00:00Z"}"#),
        ("POST", "/v1/webhook_endpoints/{w}/test", "{}"),
    ]

    @Test(arguments: Store.allCases)
    func aKeyOfTheOtherModeFindsNothingByID(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let liveVerification = f.app.json(f.create(f.live))["id"] as? String ?? ""
        let testVerification = f.app.json(f.create(f.test))["id"] as? String ?? ""
        let liveEndpoint = f.endpoint(f.live)
        let testEndpoint = f.endpoint(f.test)
        #expect(liveVerification.hasPrefix("ver_") && testVerification.hasPrefix("ver_") && liveVerification != testVerification)
        #expect(liveEndpoint.hasPrefix("we_") && testEndpoint.hasPrefix("we_"))
        for (method, template, body) in Self.namedRoutes {
            for (caller, owner, verification, endpoint) in [(f.test, f.live, liveVerification, liveEndpoint),
                                                            (f.live, f.test, testVerification, testEndpoint)] {
                let path = template.replacingOccurrences(of: "{v}", with: verification).replacingOccurrences(of: "{w}", with: endpoint)
                let before = f.app.request("GET", "/v1/verifications/\(verification)", headers: owner)
                let answer = f.app.request(method, path, headers: caller, body: body)
                #expect(answer.status == 404, "\(method) \(template) by the other mode's key answered \(answer.status)")
                // ... and changed nothing (the owner's view is byte for byte the same).
                let after = f.app.request("GET", "/v1/verifications/\(verification)", headers: owner)
                #expect(before.body == after.body, "\(method) \(template) changed the other mode's verification")
            }
        }
        // The owners still see their own, in their mode.
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(testVerification)", headers: f.test))["livemode"] as? Bool == false)
        #expect(f.app.json(f.app.request("GET", "/v1/verifications/\(liveVerification)", headers: f.live))["livemode"] as? Bool == true)
        #expect(f.app.json(f.app.request("GET", "/v1/webhook_endpoints/\(testEndpoint)", headers: f.test))["livemode"] as? Bool == false)
    }

    @Test(arguments: Store.allCases)
    func listsFeedsAndCreatesStayInTheirMode(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        // The same user and workflow in both modes: two verifications, not one (the open slot is per mode).
        let live = f.create(f.live)
        let test = f.create(f.test)
        #expect(live.status == 201 && test.status == 201)
        let liveID = f.app.json(live)["id"] as? String ?? ""
        let testID = f.app.json(test)["id"] as? String ?? ""
        #expect(f.create(f.test).status == 200 && f.app.json(f.create(f.test))["id"] as? String == testID)
        // The same Idempotency-Key in both modes: two records, each replaying its own answer.
        let liveKeyed = f.app.json(f.create(f.live, user: "user-2", key: "same-key"))["id"] as? String
        let testKeyed = f.app.json(f.create(f.test, user: "user-2", key: "same-key"))["id"] as? String
        #expect(liveKeyed != nil && testKeyed != nil && liveKeyed != testKeyed)
        #expect(f.app.json(f.create(f.test, user: "user-2", key: "same-key"))["id"] as? String == testKeyed)

        func ids(_ path: String, _ auth: [(String, String)], field: String = "id") -> [String] {
            (f.app.json(f.app.request("GET", path, headers: auth))["data"] as? [[String: Any]] ?? []).compactMap { $0[field] as? String }
        }
        #expect(Set(ids("/v1/verifications", f.live)) == [liveID, liveKeyed ?? ""])
        #expect(Set(ids("/v1/verifications", f.test)) == [testID, testKeyed ?? ""])
        #expect(ids("/v1/verifications?user_id=user-1", f.test) == [testID])
        // A cursor of the other mode is not a cursor.
        #expect(f.app.request("GET", "/v1/verifications?starting_after=\(liveID)", headers: f.test).status == 422)
        // The event feed: each mode's events only, test events saying so.
        let liveFeed = f.app.json(f.app.request("GET", "/v1/events", headers: f.live))["data"] as? [[String: Any]] ?? []
        let testFeed = f.app.json(f.app.request("GET", "/v1/events", headers: f.test))["data"] as? [[String: Any]] ?? []
        #expect(Set(liveFeed.compactMap { $0["verification_id"] as? String }) == [liveID, liveKeyed ?? ""])
        #expect(Set(testFeed.compactMap { $0["verification_id"] as? String }) == [testID, testKeyed ?? ""])
        #expect(testFeed.allSatisfy { $0["livemode"] as? Bool == false })
        #expect(liveFeed.allSatisfy { $0["livemode"] == nil })
        #expect(f.app.request("GET", "/v1/events?verification_id=\(liveID)", headers: f.test).status == 200)
        #expect(ids("/v1/events?verification_id=\(liveID)", f.test).isEmpty)
        // Webhook endpoints: listed in their mode, 16 per mode.
        let liveEndpoint = f.endpoint(f.live)
        let testEndpoint = f.endpoint(f.test)
        #expect(ids("/v1/webhook_endpoints", f.live) == [liveEndpoint])
        #expect(ids("/v1/webhook_endpoints", f.test) == [testEndpoint])
        // Shared: workflows and return URLs.
        #expect(ids("/v1/workflows", f.test, field: "key") == ["kyc"])
        #expect(ids("/v1/return_urls", f.test, field: "url") == ["https://acme.example/done"])
        // The journey funnel counts each mode's verifications for that mode only.
        func stage(_ name: String, _ auth: [(String, String)]) -> Int? {
            let funnel = f.app.json(f.app.request("GET", "/v1/analytics/funnel", headers: auth))
            return (funnel["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == name }?["count"] as? Int
        }
        _ = f.create(f.test, user: "user-3")
        #expect(f.app.journey("GET", testID, "", headers: [("User-Agent", "Mozilla/5.0 (Linux; Android 14) Mobile")]).status == 200)
        #expect(stage("created", f.live) == 2 && stage("opened", f.live) == 0)
        #expect(stage("created", f.test) == 3 && stage("opened", f.test) == 1)
        // The journey's brand (asked before sign-in) says a test verification is one, and nothing more.
        let testBrand = f.app.json(f.app.request("GET", "/j/\(testID)/api/brand"))
        let liveBrand = f.app.json(f.app.request("GET", "/j/\(liveID)/api/brand"))
        #expect(testBrand["livemode"] as? Bool == false && liveBrand["livemode"] == nil)
        #expect(Set(testBrand.keys).subtracting(liveBrand.keys) == ["livemode"])
        // The account is the same account.
        #expect(f.app.json(f.app.request("GET", "/v1/account", headers: f.test))["id"] as? String == f.accountID.rawValue)
    }

    @Test(arguments: Store.allCases)
    func eachModesEventsReachOnlyThatModesEndpoints(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let liveEndpoint = f.endpoint(f.live)
        let testEndpoint = f.endpoint(f.test)
        let testID = f.app.json(f.create(f.test))["id"] as? String ?? ""
        let liveID = f.app.json(f.create(f.live))["id"] as? String ?? ""
        let queued = try f.app.application.database.query("""
            SELECT d.endpoint_id, d.payload, e.verification_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
            """)
        let pairs = try queued.map { (try $0.string("endpoint_id"), try $0.string("verification_id"), try $0.string("payload")) }
        #expect(pairs.contains { $0.0 == testEndpoint && $0.1 == testID && $0.2.contains(#""livemode":false"#) })
        #expect(pairs.contains { $0.0 == liveEndpoint && $0.1 == liveID && $0.2.contains(#""livemode":true"#) })
        #expect(!pairs.contains { $0.0 == testEndpoint && $0.1 == liveID })
        #expect(!pairs.contains { $0.0 == liveEndpoint && $0.1 == testID })
    }

    @Test(arguments: Store.allCases)
    func keysOfEitherModeAreMadeOnlyWithALiveKey(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let made = f.app.request("POST", "/v1/api_keys", headers: f.live, body: #"{"mode":"test"}"#)
        #expect(made.status == 201)
        let key = f.app.json(made)
        #expect((key["secret"] as? String)?.hasPrefix("sk_test_") == true && key["livemode"] as? Bool == false)
        #expect((key["display_prefix"] as? String)?.hasPrefix("sk_test_") == true)
        let liveKey = f.app.json(f.app.request("POST", "/v1/api_keys", headers: f.live, body: "{}"))
        #expect((liveKey["secret"] as? String).map { $0.hasPrefix("sk_") && !$0.hasPrefix("sk_test_") } == true)
        // A test key makes no keys, of either mode.
        let refused = f.app.request("POST", "/v1/api_keys", headers: f.test, body: #"{"mode":"live"}"#)
        #expect(refused.status == 403 && f.app.code(refused) == "live_key_required")
        #expect(f.app.request("POST", "/v1/api_keys", headers: f.live, body: #"{"mode":"sandbox"}"#).status == 422)
        // A replay of a key's creation answers it without the secret (which is stored nowhere).
        let first = f.app.request("POST", "/v1/api_keys", headers: f.live + [("Idempotency-Key", "k-1")], body: #"{"mode":"test"}"#)
        let again = f.app.request("POST", "/v1/api_keys", headers: f.live + [("Idempotency-Key", "k-1")], body: #"{"mode":"test"}"#)
        #expect(first.status == 201 && again.status == 201)
        #expect(f.app.json(again)["id"] as? String == f.app.json(first)["id"] as? String)
        #expect(f.app.json(again)["secret"] is NSNull)
        let secret = f.app.json(first)["secret"] as? String ?? "missing"
        #expect(!(try f.app.storedBytes()).contains(text: secret))
    }
}
