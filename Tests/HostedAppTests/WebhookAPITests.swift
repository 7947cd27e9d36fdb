import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedTestSupport
import Testing

/// Webhook endpoints through the customer API and their messages delivered to a receiver on
/// 127.0.0.1, on SQLite and PostgreSQL. The Python tests (tests/e2e/test_webhooks.py) verify the
/// same messages with the official standardwebhooks library against a running server.
@Suite struct WebhookAPITests {
    struct Fixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let hosts: URL

        init(_ store: Store, devMode: Bool = true, schedule: String = "1,1") throws {
            let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)")
            try "127.0.0.1 hooks.test\n10.0.0.1 private.test\n169.254.169.254 metadata.test\n".write(to: hosts, atomically: true, encoding: .utf8)
            self.hosts = hosts
            app = try TestApplication(store: store) { configuration in
                configuration.devMode = devMode
                configuration.webhookHostsFile = hosts.path
                configuration.webhookRetrySchedule = RetrySchedule(parsing: schedule)!
                configuration.webhookTimeoutSeconds = 2
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            #expect(post("/v1/workflows", #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#).status == 201)
        }

        func createVerification(_ user: String = "user-1") -> String {
            json(post("/v1/verifications", #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        }
        func close() {
            app.close()
            try? FileManager.default.removeItem(at: hosts)
        }
    }

    /// A receiver on 127.0.0.1 that answers each POST with the next status of `statuses` (then 200).
    final class Receiver: @unchecked Sendable {
        struct Received { let headers: HTTPHeaders; let body: [UInt8] }
        private let lock = NSLock()
        private var statuses: [Int]
        private var seen: [Received] = []
        private(set) var server: HTTPServer!

        init(statuses: [Int] = []) throws {
            self.statuses = statuses
            var routes = Router.Builder()
            routes.add("POST", "/hook") { [self] request, _ in
                lock.lock()
                seen.append(Received(headers: request.headers, body: request.body))
                let status = self.statuses.isEmpty ? 200 : self.statuses.removeFirst()
                lock.unlock()
                return Response(status: status)
            }
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2), responder: routes.build(), log: Quiet())
            try server.start()
        }
        var received: [Received] { lock.lock(); defer { lock.unlock() }; return seen }
        var url: String { "http://hooks.test:\(server.port)/hook" }
        func stop() { server.shutdown(gracePeriod: 1) }
    }

    struct Quiet: ServerLog {
        func access(_ entry: AccessLogEntry) {}
        func error(_ message: String, requestID: String?) {}
    }

    /// Checks a message the way Standard Webhooks receivers do: some `v1,` entry of the
    /// signature header must be HMAC-SHA256(secret, "id.timestamp.body").
    static func verifies(_ message: Receiver.Received, secret: String) -> Bool {
        guard let key = WebhookSignature.key(of: secret), let id = message.headers["webhook-id"],
              let timestamp = message.headers["webhook-timestamp"], let header = message.headers["webhook-signature"]
        else { return false }
        let expected = "v1," + Data(Digest.hmacSHA256(key: key, message: Array("\(id).\(timestamp).".utf8) + message.body)).base64EncodedString()
        return header.split(separator: " ").contains { $0 == expected }
    }

    @Test(arguments: Store.allCases)
    func endpointsAreManagedAndTheSecretIsShownOnceAndStoredSealed(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let created = f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/hook","events":["verification.approved"],"description":"backend"}"#)
        #expect(created.status == 201)
        #expect(created.headers["Cache-Control"] == "no-store")
        let body = f.json(created)
        let id = try #require(body["id"] as? String)
        let secret = try #require(body["secret"] as? String)
        #expect(secret.hasPrefix("whsec_") && body["status"] as? String == "enabled" && body["events"] as? [String] == ["verification.approved"])
        let fetched = f.json(f.get("/v1/webhook_endpoints/\(id)"))
        #expect(fetched["id"] as? String == id && fetched["secret"] == nil && fetched["description"] as? String == "backend")
        let list = try #require(f.json(f.get("/v1/webhook_endpoints"))["data"] as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == [id] && list[0]["secret"] == nil)
        // The secret is nowhere in the store in clear.
        #expect(!(try f.app.storedBytes()).contains(text: secret))
        #expect(!(try f.app.storedBytes()).contains(text: String(secret.dropFirst(6))))
        // Patch, disable, enable, rotate, delete.
        let patched = f.app.request("PATCH", "/v1/webhook_endpoints/\(id)", headers: f.auth, body: #"{"events":["*"],"status":"disabled"}"#)
        #expect(patched.status == 200 && f.json(patched)["status"] as? String == "disabled" && f.json(patched)["disabled_reason"] as? String == "manual")
        let enabled = f.app.request("PATCH", "/v1/webhook_endpoints/\(id)", headers: f.auth, body: #"{"status":"enabled"}"#)
        #expect(f.json(enabled)["status"] as? String == "enabled" && f.json(enabled)["disabled_reason"] is NSNull)
        let rotated = f.post("/v1/webhook_endpoints/\(id)/rotate_secret", "")
        let newSecret = try #require(f.json(rotated)["secret"] as? String)
        #expect(rotated.status == 200 && newSecret != secret)
        #expect(f.app.request("DELETE", "/v1/webhook_endpoints/\(id)", headers: f.auth).status == 200)
        #expect(f.get("/v1/webhook_endpoints/\(id)").status == 404)
        #expect(f.app.request("DELETE", "/v1/webhook_endpoints/\(id)", headers: f.auth).status == 404)
        // A retried create (same Idempotency-Key) is the same endpoint, its secret not shown again.
        let key = [("Idempotency-Key", "create-hook-1")]
        let first = f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/hook"}"#, headers: key)
        let again = f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/hook"}"#, headers: key)
        #expect(first.status == 201 && again.status == 201 && again.headers["Idempotent-Replayed"] == "true")
        #expect(f.json(again)["id"] as? String == f.json(first)["id"] as? String && f.json(again)["secret"] == nil)
        #expect(!(try f.app.storedBytes()).contains(text: f.json(first)["secret"] as? String ?? "-"))
    }

    @Test(arguments: Store.allCases)
    func badInputIsRefusedAndChangesNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        for body in [#"{}"#, #"{"url":"http://hooks.test:9/h","events":[]}"#, #"{"url":"http://hooks.test:9/h","events":["verification.nope"]}"#,
                     #"{"url":"http://hooks.test:9/h","events":"*"}"#, #"{"url":"http://hooks.test:9/h","colour":"red"}"#,
                     #"{"url":"http://hooks.test:9/h","description":"\#(String(repeating: "x", count: 501))"}"#] {
            #expect(f.post("/v1/webhook_endpoints", body).status == 422, "\(body)")
        }
        #expect(f.get("/v1/webhook_endpoints/we_aaaaaaaaaaaaaaaaaaaaaaaaaa").status == 404)
        #expect(f.get("/v1/webhook_endpoints/nonsense").status == 404)
        #expect(f.get("/v1/webhook_endpoints?starting_after=we_aaaaaaaaaaaaaaaaaaaaaaaaaa").status == 422)
        #expect(f.post("/v1/webhook_endpoints/we_aaaaaaaaaaaaaaaaaaaaaaaaaa/recover", #"{"since":"2026-01-01T00:00:00Z"}"#).status == 404)
        let id = try #require(f.json(f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/h"}"#))["id"] as? String)
        #expect(f.post("/v1/webhook_endpoints/\(id)/recover", #"{"since":"yesterday"}"#).status == 422)
        #expect(f.post("/v1/webhook_endpoints/\(id)/recover", #"{"since":99999999999999}"#).status == 422)
        #expect(f.post("/v1/webhook_endpoints/\(id)/recover", #"{}"#).status == 422)
        #expect(f.get("/v1/webhook_endpoints/\(id)/deliveries?starting_after=whd_nope").status == 422)
        #expect(f.app.request("PATCH", "/v1/webhook_endpoints/\(id)", headers: f.auth, body: #"{"status":"paused"}"#).status == 422)
        #expect(try #require(f.json(f.get("/v1/webhook_endpoints"))["data"] as? [Any]).count == 1)
        #expect(f.app.request("GET", "/v1/webhook_endpoints").status == 401)
    }

    @Test(arguments: Store.allCases)
    func createWebhookEndpoint_409_pastSixteenForTheAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        for _ in 0..<16 { #expect(f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/h"}"#).status == 201) }
        let refused = f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/h"}"#)
        #expect(refused.status == 409 && f.code(refused) == "webhook_endpoint_limit_reached")
        #expect(refused.headers["Content-Type"] == "application/problem+json")
        #expect(try #require(f.json(f.get("/v1/webhook_endpoints?limit=100"))["data"] as? [Any]).count == 16)
        // Deleting one makes room again.
        let first = try #require((f.json(f.get("/v1/webhook_endpoints"))["data"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(f.app.request("DELETE", "/v1/webhook_endpoints/\(first)", headers: f.auth).status == 200)
        #expect(f.post("/v1/webhook_endpoints", #"{"url":"http://hooks.test:9/h"}"#).status == 201)
    }

    @Test(arguments: [true, false])
    func privateLoopbackLinkLocalAndMetadataAddressesAreRefusedAtCreation(_ devMode: Bool) throws {
        let f = try Fixture(.sqlite, devMode: devMode)
        defer { f.close() }
        var refused = ["https://10.0.0.1/h", "https://192.168.1.1/h", "https://172.16.5.4/h", "https://169.254.169.254/latest/meta-data",
                       "https://[fd00:ec2::254]/h", "https://[fe80::1]/h", "https://[::ffff:10.0.0.1]/h", "https://224.0.0.1/h",
                       "https://0.0.0.0/h", "https://user:pass@hooks.example.com/h", "ftp://hooks.example.com/h"]
        if devMode {
            // Names come from the hosts file only: a name that is a private address is refused too.
            refused += ["https://private.test/h", "https://metadata.test/h", "https://unknown.test/h", "http://private.test/h"]
        } else {
            refused += ["https://127.0.0.1/h", "https://[::1]/h", "https://localhost/h", "http://127.0.0.1:9/h"]
        }
        for url in refused {
            let response = f.post("/v1/webhook_endpoints", #"{"url":"\#(url)"}"#)
            #expect(response.status == 422 && f.code(response) == "webhook_url_not_allowed", "\(url): \(response.status)")
            if response.status == 201, let id = f.json(response)["id"] as? String {
                // Wrongly accepted: removed at once, so nothing is ever sent there.
                _ = f.app.request("DELETE", "/v1/webhook_endpoints/\(id)", headers: f.auth)
            }
        }
        #expect(try #require(f.json(f.get("/v1/webhook_endpoints"))["data"] as? [Any]).isEmpty)
    }

    @Test(arguments: Store.allCases)
    func messagesAreSignedRetriedAndLoggedAndRotationSignsWithBothSecrets(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, schedule: "0,0")
        defer { f.close() }
        let receiver = try Receiver(statuses: [500, 200])
        defer { receiver.stop() }
        let endpoint = f.json(f.post("/v1/webhook_endpoints", #"{"url":"\#(receiver.url)"}"#))
        let id = try #require(endpoint["id"] as? String)
        let secret = try #require(endpoint["secret"] as? String)
        let verification = f.createVerification()
        #expect(f.app.application.runWebhookDeliveries() == 2)  // 500, then the retry due at once: 200
        let received = receiver.received
        try #require(received.count == 2)
        let events = try #require(f.json(f.get("/v1/verifications/\(verification)/events"))["data"] as? [[String: Any]])
        for message in received {
            #expect(Self.verifies(message, secret: secret))
            #expect(message.headers["webhook-id"] == events[0]["id"] as? String)
            #expect(message.headers["Content-Type"] == "application/json")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(message.body)) as? [String: Any])
            #expect(body["type"] as? String == "verification.created")
            #expect((body["data"] as? [String: Any])?["verification_id"] as? String == verification)
        }
        let log = try #require(f.json(f.get("/v1/webhook_endpoints/\(id)/deliveries"))["data"] as? [[String: Any]])
        #expect(log.map { $0["status"] as? String } == ["succeeded", "failed"])
        #expect(log.map { $0["attempt"] as? Int } == [2, 1])
        #expect(log[1]["response_status"] as? Int == 500 && log[1]["error"] as? String == "HTTP 500")
        // After rotation, both secrets sign (old receivers keep working for 24 h).
        let newSecret = try #require(f.json(f.post("/v1/webhook_endpoints/\(id)/rotate_secret", ""))["secret"] as? String)
        #expect(f.post("/v1/verifications/\(verification)/cancel", "").status == 200)
        #expect(f.app.application.runWebhookDeliveries() == 1)
        let rotated = try #require(receiver.received.last)
        #expect(rotated.headers["webhook-signature"]?.split(separator: " ").count == 2)
        #expect(Self.verifies(rotated, secret: secret) && Self.verifies(rotated, secret: newSecret))
        // The test message, and recovery of the one already delivered: nothing to recover.
        #expect(f.post("/v1/webhook_endpoints/\(id)/test", "").status == 202)
        #expect(f.app.application.runWebhookDeliveries() == 1)
        let last = try #require(receiver.received.last)
        let test = try #require(try JSONSerialization.jsonObject(with: Data(last.body)) as? [String: Any])
        #expect(test["type"] as? String == "webhook.test")
        #expect(f.json(f.post("/v1/webhook_endpoints/\(id)/recover", #"{"since":0}"#))["queued"] as? Int == 0)
    }

    @Test func aNameThatMovesToAPrivateAddressIsCaughtAtDelivery() throws {
        let f = try Fixture(.sqlite, schedule: "0")
        defer { f.close() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let id = try #require(f.json(f.post("/v1/webhook_endpoints", #"{"url":"\#(receiver.url)"}"#))["id"] as? String)
        try "10.0.0.1 hooks.test\n".write(to: f.hosts, atomically: true, encoding: .utf8)
        _ = f.createVerification()
        #expect(f.app.application.runWebhookDeliveries() == 2)  // the attempt and its one retry
        #expect(receiver.received.isEmpty)
        let log = try #require(f.json(f.get("/v1/webhook_endpoints/\(id)/deliveries"))["data"] as? [[String: Any]])
        #expect(log.map { $0["error"] as? String } == ["address not allowed", "address not allowed"])
        #expect(log.map { $0["status"] as? String } == ["failed", "failed"] && log[0]["next_attempt_at"] is NSNull)
    }
}

/// The delivery workers on their own threads (as `serve` runs them), on both stores: several
/// endpoints, messages queued from several threads, each delivered once. Runs under
/// ThreadSanitizer with the other live suites.
@Suite struct WebhookDeliveryLiveTests {
    @Test(arguments: Store.allCases)
    func workersDeliverEveryMessageOnceToEveryEndpoint(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try WebhookAPITests.Fixture(store, schedule: "1")
        defer { f.close() }
        let receivers = try (0..<3).map { _ in try WebhookAPITests.Receiver() }
        defer { receivers.forEach { $0.stop() } }
        for receiver in receivers {
            #expect(f.post("/v1/webhook_endpoints", #"{"url":"\#(receiver.url)"}"#).status == 201)
        }
        f.app.application.startBackgroundWork()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<5 { _ = f.createVerification("user-\(thread)-\(index)") }
        }
        let deadline = Date().addingTimeInterval(20)
        while receivers.contains(where: { $0.received.count < 20 }) && Date() < deadline { usleep(50_000) }
        for receiver in receivers {
            let ids = receiver.received.compactMap { $0.headers["webhook-id"] }
            #expect(ids.count == 20 && Set(ids).count == 20)
        }
    }

    /// A TCP listener on 127.0.0.1 that never accepts: a connection completes in the kernel's
    /// backlog and the request is never answered, like a receiver that hangs.
    final class HangingReceiver {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
            }
            guard descriptor >= 0, bound, listen(descriptor, 512) == 0 else {
                if descriptor >= 0 { close(descriptor) }
                throw POSIXError(.EADDRNOTAVAIL)
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        var url: String { "http://hooks.test:\(port)/hook" }
        func stop() { close(descriptor) }
    }

    /// Defect 3 of issue 37: one account with many endpoints to a receiver that hangs took all 16
    /// delivery slots, and another account's first delivery waited for them (96 s in the
    /// report). Its share is four: the other account's message goes out at once.
    @Test(arguments: Store.allCases)
    func anAccountWhoseReceiversHangDoesNotDelayAnotherAccountsFirstDelivery(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try WebhookAPITests.Fixture(store, schedule: "1")  // each attempt times out after 2 s
        defer { f.close() }
        let hanging = try HangingReceiver()
        defer { hanging.stop() }
        for _ in 0..<16 { #expect(f.post("/v1/webhook_endpoints", #"{"url":"\#(hanging.url)"}"#).status == 201) }
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let otherAuth = [("Authorization", "Bearer \(other.secret.value)")]
        #expect(f.app.request("POST", "/v1/workflows", headers: otherAuth,
                              body: #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#).status == 201)
        let receiver = try WebhookAPITests.Receiver()
        defer { receiver.stop() }
        #expect(f.app.request("POST", "/v1/webhook_endpoints", headers: otherAuth, body: #"{"url":"\#(receiver.url)"}"#).status == 201)
        f.app.application.startBackgroundWork()
        for index in 0..<3 { _ = f.createVerification("noisy-\(index)") }  // 48 messages that hang 2 s each
        usleep(500_000)  // the hanging attempts have their slots
        let created = Date()
        #expect(f.app.request("POST", "/v1/verifications", headers: otherAuth,
                              body: #"{"user_id":"quiet","workflow":"kyc","mobile":"+919876543210"}"#).status == 201)
        while receiver.received.isEmpty && Date().timeIntervalSince(created) < 15 { usleep(20_000) }
        let waited = Date().timeIntervalSince(created)
        #expect(receiver.received.count == 1)
        #expect(waited < 1.5, "the other account's first delivery waited \(waited) s")
    }
}
