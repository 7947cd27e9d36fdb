import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedStorage
import HostedHTTP
import HostedTestSupport
import Testing

/// The customer API through the application's responder, on SQLite and PostgreSQL.
@Suite struct CustomerAPITests {
    /// An app with one account, a registered return URL and a workflow.
    struct Fixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let clock: ManualClock

        init(_ store: Store) throws {
            clock = ManualClock()
            app = try TestApplication(store: store, clock: clock)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            #expect(post("/v1/return_urls", #"{"url":"https://app.example.com/kyc/done"}"#).status == 201)
            #expect(post("/v1/workflows", Self.workflow).status == 201)
        }

        static let workflow = #"{"key":"kyc_basic","name":"Basic KYC","steps":[{"type":"profile"},{"type":"selfie"},{"type":"premises_photos","min":2,"max":4}]}"#

        func create(user: String = "user-1", extra: String = "") -> Response {
            post("/v1/verifications", #"{"user_id":"\#(user)","workflow":"kyc_basic","mobile":"+919876543210"\#(extra)}"#)
        }

        func close() { app.close() }
    }

    @Test(arguments: Store.allCases)
    func createVerification_201_thenSameUserAndWorkflow_200(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let first = f.create(extra: #","return_url":"https://APP.example.com:443/kyc/done","metadata":{"order":"42"}"#)
        #expect(first.status == 201)
        let body = f.json(first)
        let id = try #require(body["id"] as? String)
        #expect(id.hasPrefix("ver_"))
        #expect(body["status"] as? String == "created")
        #expect(body["journey_url"] as? String == "https://verify.example.com/j/\(id)")
        #expect(body["mobile_last4"] as? String == "3210")
        #expect(body["return_url"] as? String == "https://app.example.com/kyc/done")
        #expect(body["workflow_version"] as? Int == 1)
        #expect((body["steps"] as? [[String: Any]])?.map { $0["id"] as? String } == ["profile", "selfie", "premises_photos"])
        #expect(!String(decoding: first.body, as: UTF8.self).contains("9876543210"))
        #expect(first.headers["ETag"] != nil)

        let again = f.create()
        #expect(again.status == 200)
        #expect(f.json(again)["id"] as? String == id)
        // Another user, or after cancel: a new verification.
        #expect(f.create(user: "user-2").status == 201)
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)
        let fresh = f.create()
        #expect(fresh.status == 201)
        #expect(f.json(fresh)["id"] as? String != id)
    }

    @Test(arguments: Store.allCases)
    func createVerification_422_storesNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let bad = f.post("/v1/verifications", #"{"user_id":"has\u0009tab","workflow":"nope","mobile":"98765","metadata":{"k":"\#(String(repeating: "v", count: 501))"}}"#)
        #expect(bad.status == 422)
        #expect(f.code(bad) == "invalid_request")
        let fields = Set((f.json(bad)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] })
        #expect(fields == ["user_id", "workflow", "mobile", "metadata.k"])
        #expect(f.post("/v1/verifications", #"{"workflow":"kyc_basic"}"#).status == 422)
        #expect(f.post("/v1/verifications", #"{"user_id":1,"workflow":"kyc_basic","mobile":"+919876543210"}"#).status == 422)
        #expect(f.post("/v1/verifications", "not json").status == 400)
        #expect(f.post("/v1/verifications", "[]").status == 400)
        let unregistered = f.create(extra: #","return_url":"https://app.example.com/other""#)
        #expect(unregistered.status == 422)
        #expect(f.code(unregistered) == "return_url_not_registered")
        #expect(f.code(f.create(extra: #","return_url":"acme://kyc/done""#)) == "return_url_scheme_not_allowed")
        #expect(f.code(f.create(extra: #","return_url":"http://app.example.com/kyc/done""#)) == "return_url_not_https")
        // Fields the API does not know are each named (sorted), even beside valid ones.
        let typos = f.create(extra: #","nickname":"x","métadata":{},"return_url":null"#)
        #expect(typos.status == 422)
        #expect((f.json(typos)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] } == ["métadata", "nickname"])
        let list = f.json(f.get("/v1/verifications"))
        #expect((list["data"] as? [Any])?.isEmpty == true)
    }

    @Test(arguments: Store.allCases)
    func getVerification_404_forAnotherAccountOrUnknownId(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let otherAuth = [("Authorization", "Bearer \(other.secret.value)")]
        #expect(f.app.request("GET", "/v1/verifications/\(id)", headers: otherAuth).status == 404)
        #expect(f.app.request("POST", "/v1/verifications/\(id)/cancel", headers: otherAuth).status == 404)
        #expect(f.app.request("PATCH", "/v1/verifications/\(id)", headers: otherAuth, body: "{}").status == 404)
        #expect((f.json(f.app.request("GET", "/v1/verifications", headers: otherAuth))["data"] as? [Any])?.isEmpty == true)
        #expect(f.get("/v1/verifications/ver_aaaaaaaaaaaaaaaaaaaaaaaaaa").status == 404)
        #expect(f.get("/v1/verifications/nonsense").status == 404)
        #expect(f.app.request("GET", "/v1/verifications/\(id)").status == 401)
        #expect(f.get("/v1/verifications/\(id)").status == 200)
    }

    @Test(arguments: Store.allCases)
    func getVerification_304_withMatchingETag_andNewETagAfterChange(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let created = f.create()
        let id = try #require(f.json(created)["id"] as? String)
        let etag = try #require(created.headers["ETag"])
        let unchanged = f.get("/v1/verifications/\(id)", headers: [("If-None-Match", etag)])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth, body: #"{"metadata":{"a":"b"}}"#).status == 200)
        let changed = f.get("/v1/verifications/\(id)", headers: [("If-None-Match", etag)])
        #expect(changed.status == 200)
        #expect(changed.headers["ETag"] != etag)
        #expect((f.json(changed)["metadata"] as? [String: String]) == ["a": "b"])
    }

    /// Answers about an unchanged verification are sent from what the last one wrote; a row
    /// changed behind the service (no revision, no change feed) is still shown as it is now
    /// (a column kept in clear: the personal ones are sealed).
    @Test(arguments: Store.allCases)
    func getVerification_showsARowChangedBehindTheService(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        for _ in 0..<3 { #expect(f.get("/v1/verifications/\(id)").status == 200) }
        try f.app.application.database.query("UPDATE verifications SET workflow_version = 7 WHERE id = \(id)")
        for _ in 0..<3 {
            let read = f.get("/v1/verifications/\(id)")
            #expect(f.json(read)["workflow_version"] as? Int == 7)
        }
    }

    @Test(arguments: Store.allCases)
    func patchVerification_200_thenCancel_thenPatch_409(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        let patched = f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth,
                                    body: #"{"mobile":"+14155550123","return_url":"https://app.example.com/kyc/done"}"#)
        #expect(patched.status == 200)
        #expect(f.json(patched)["mobile_last4"] as? String == "0123")
        #expect(f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth, body: #"{"mobile":"0123"}"#).status == 422)
        #expect(f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth, body: #"{"status":"approved"}"#).status == 422)
        let canceled = f.post("/v1/verifications/\(id)/cancel", "")
        #expect(f.json(canceled)["status"] as? String == "canceled")
        #expect(f.post("/v1/verifications/\(id)/cancel", "").status == 200)
        let refused = f.app.request("PATCH", "/v1/verifications/\(id)", headers: f.auth, body: #"{"metadata":{}}"#)
        #expect(refused.status == 409)
        #expect(f.code(refused) == "verification_closed")
    }

    @Test(arguments: Store.allCases)
    func listVerifications_newestFirst_withCursorAndFilters(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        var ids: [String] = []
        for index in 0..<5 {
            f.clock.advance(by: 1)
            ids.append(try #require(f.json(f.create(user: "u\(index)"))["id"] as? String))
        }
        let first = f.json(f.get("/v1/verifications?limit=2"))
        #expect((first["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [ids[4], ids[3]])
        #expect(first["has_more"] as? Bool == true)
        let second = f.json(f.get("/v1/verifications?limit=2&starting_after=\(ids[3])"))
        #expect((second["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [ids[2], ids[1]])
        let last = f.json(f.get("/v1/verifications?limit=2&starting_after=\(ids[1])"))
        #expect((last["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [ids[0]])
        #expect(last["has_more"] as? Bool == false)
        #expect((f.json(f.get("/v1/verifications?user_id=u2"))["data"] as? [Any])?.count == 1)
        _ = f.post("/v1/verifications/\(ids[0])/cancel", "")
        #expect((f.json(f.get("/v1/verifications?status=canceled"))["data"] as? [[String: Any]])?.first?["id"] as? String == ids[0])
        for bad in ["limit=0", "limit=101", "limit=x", "status=done", "starting_after=x", "colour=red"] {
            #expect(f.get("/v1/verifications?\(bad)").status == 422, "\(bad)")
        }
    }

    @Test(arguments: Store.allCases)
    func idempotencyKey_replays_rejectsOtherBody_andFreesKeyOnValidationError(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let key = [("Idempotency-Key", "order-42")]
        let body = #"{"user_id":"idem","workflow":"kyc_basic","mobile":"+919876543210"}"#
        let first = f.post("/v1/verifications", body, headers: key)
        #expect(first.status == 201)
        let replay = f.post("/v1/verifications", body, headers: key)
        #expect(replay.status == 201)
        #expect(replay.body == first.body)
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        let reused = f.post("/v1/verifications", #"{"user_id":"other","workflow":"kyc_basic","mobile":"+919876543210"}"#, headers: key)
        #expect(reused.status == 422)
        #expect(f.code(reused) == "idempotency_key_reused")

        let key2 = [("Idempotency-Key", "order-43")]
        #expect(f.post("/v1/verifications", #"{"user_id":"fixme","workflow":"kyc_basic","mobile":"bad"}"#, headers: key2).status == 422)
        #expect(f.post("/v1/verifications", #"{"user_id":"fixme","workflow":"kyc_basic","mobile":"+919876543210"}"#, headers: key2).status == 201)

        // Keys are scoped to the account.
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let otherReply = f.app.request("POST", "/v1/return_urls",
                                       headers: [("Authorization", "Bearer \(other.secret.value)"), ("Idempotency-Key", "order-42")],
                                       body: #"{"url":"https://other.example/done"}"#)
        #expect(otherReply.status == 201)
        #expect(f.post("/v1/verifications", body, headers: [("Idempotency-Key", String(repeating: "k", count: 256))]).status == 400)
    }

    @Test(arguments: Store.allCases)
    func idempotencyKey_409_whileTheFirstIsRunning_andForgottenAfter24Hours(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let body = #"{"url":"https://app.example.com/second"}"#
        let headers = [("Idempotency-Key", "in-flight-1")]
        // A first request with this key that is still running: its claim is in the database.
        let account = try f.app.application.accounts.authenticate(authorization: f.auth[0].1)
        let hash = Digest.hex(Digest.sha256(Array("POST /v1/return_urls\n".utf8) + Array(body.utf8)))
        let claim = try IdempotencyStore(database: f.app.application.database)
            .claim(accountID: account.id, key: "in-flight-1", requestHash: hash, at: f.clock.now())
        #expect(claim == .claimed)
        let busy = f.post("/v1/return_urls", body, headers: headers)
        #expect(busy.status == 409)
        #expect(f.code(busy) == "idempotency_key_in_use")
        #expect(busy.headers["Retry-After"] != nil)

        let done = f.post("/v1/return_urls", body, headers: [("Idempotency-Key", "day-old")])
        #expect(done.status == 201)
        f.clock.advance(by: 23 * 3600)
        #expect(f.post("/v1/return_urls", #"{"url":"https://app.example.com/third"}"#, headers: [("Idempotency-Key", "day-old")]).status == 422)
        f.clock.advance(by: 2 * 3600)
        #expect(f.post("/v1/return_urls", #"{"url":"https://app.example.com/third"}"#, headers: [("Idempotency-Key", "day-old")]).status == 201)
    }

    @Test(arguments: Store.allCases)
    func workflows_201_newVersions_pinnedByVerifications(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try #require(f.json(f.create())["id"] as? String)
        let v2 = f.post("/v1/workflows", #"{"key":"kyc_basic","name":"Basic KYC v2","steps":[{"type":"selfie"}]}"#)
        #expect(v2.status == 201)
        #expect(f.json(v2)["version"] as? Int == 2)
        #expect(f.json(f.get("/v1/workflows/kyc_basic"))["version"] as? Int == 2)
        #expect((f.json(f.get("/v1/workflows"))["data"] as? [Any])?.count == 1)
        let pinned = f.json(f.get("/v1/verifications/\(id)"))
        #expect(pinned["workflow_version"] as? Int == 1)
        #expect((pinned["steps"] as? [Any])?.count == 3)
        #expect(f.get("/v1/workflows/nope").status == 404)
        let bad = f.post("/v1/workflows", #"{"key":"Bad Key","name":"","steps":[{"type":"selfie"},{"type":"selfie"}]}"#)
        #expect(bad.status == 422)
        let fields = Set((f.json(bad)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] })
        #expect(fields == ["key", "name", "steps[1].id"])
        // Unknown keys inside a step are refused like unknown keys of the body; nothing is stored.
        let typo = f.post("/v1/workflows", #"{"key":"kyc_basic","name":"v3","steps":[{"type":"digilocker","document":["pan"]}]}"#)
        #expect(typo.status == 422)
        #expect((f.json(typo)["errors"] as? [[String: String]])?.first?["field"] == "steps[0].document")
        #expect(f.json(f.get("/v1/workflows/kyc_basic"))["version"] as? Int == 2)
    }

    @Test(arguments: Store.allCases)
    func returnURLs_register_list_delete(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let again = f.post("/v1/return_urls", #"{"url":"HTTPS://APP.example.com:443/kyc/done"}"#)
        #expect(again.status == 200)
        let second = f.post("/v1/return_urls", #"{"url":"https://app.example.com/other?x=1"}"#)
        #expect(second.status == 201)
        let id = try #require(f.json(second)["id"] as? String)
        #expect((f.json(f.get("/v1/return_urls"))["data"] as? [Any])?.count == 2)
        #expect(f.app.request("DELETE", "/v1/return_urls/\(id)", headers: f.auth).status == 200)
        #expect(f.app.request("DELETE", "/v1/return_urls/\(id)", headers: f.auth).status == 404)
        #expect(f.code(f.post("/v1/return_urls", #"{"url":"acme://kyc/done"}"#)) == "return_url_scheme_not_allowed")
        #expect(f.code(f.post("/v1/return_urls", #"{"url":"http://localhost/done"}"#)) == "return_url_not_https")
        #expect(f.code(f.post("/v1/return_urls", #"{"url":"https://a@evil.tld/"}"#)) == "return_url_invalid")
        #expect((f.json(f.get("/v1/return_urls"))["data"] as? [Any])?.count == 1)
    }

    @Test func returnURLs_loopbackHttpOnlyInDevMode() throws {
        let app = try TestApplication { $0.devMode = true }
        defer { app.close() }
        let key = try app.application.accounts.createAccount(name: "Dev").secret.value
        let response = app.request("POST", "/v1/return_urls", headers: [("Authorization", "Bearer \(key)")],
                                   body: #"{"url":"http://127.0.0.1:3000/done"}"#)
        #expect(response.status == 201)
    }
}

/// A response delivered later from another thread.
typealias Answer = Arrival<Response>
