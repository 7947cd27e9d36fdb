import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// SMS sign-in hardening: a stranger cannot spend a number's budget, spent limits are pruned,
/// codes are queued sealed, sent after the answer and retried.
extension HardeningTests {
    // MARK: SMS sign-in

    /// A fake SMS relay on loopback that answers `status` and keeps what it received.
    final class Relay: Sendable {
        let server: HTTPServer

        init(status: Int) throws {
            var routes = Router.Builder()
            let received = Received()
            routes.add("POST", "/sms") { request, _ in
                received.add(String(decoding: request.body, as: UTF8.self))
                return Response(status: status)
            }
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), responder: routes.build(), log: SilentLog())
            try server.start()
            self.received = received
        }

        let received: Received
        var url: URL { URL(string: "http://127.0.0.1:\(server.port)/sms")! }
        func stop() { server.shutdown(gracePeriod: 1) }

        final class Received: @unchecked Sendable {  // `bodies` only under `lock`
            private let lock = NSLock()
            private var bodies: [String] = []
            func add(_ body: String) { lock.lock(); bodies.append(body); lock.unlock() }
            var all: [String] { lock.lock(); defer { lock.unlock() }; return bodies }
        }
    }

    struct SMSFixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let clock = ManualClock()

        init(_ store: Store, relay: Relay? = nil) throws {
            let clock = self.clock
            app = try TestApplication(store: store, clock: clock) {
                $0.trustedProxies = ["127.0.0.1"]
                if let relay {
                    $0.smsRelayURL = relay.url
                    $0.smsRelaySecret = "relay-secret-0123456789"
                } else {
                    $0.devMode = true
                }
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            _ = app.request("POST", "/v1/workflows", headers: auth, body: #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#)
        }

        func verification(user: String, mobile: String) -> String {
            json(post("/v1/verifications", #"{"user_id":"\#(user)","workflow":"kyc","mobile":"\#(mobile)"}"#))["id"] as? String ?? ""
        }

        func askCode(_ id: String, _ mobile: String, from address: String) -> Int {
            app.journey("POST", id, "/api/otp", body: #"{"mobile":"\#(mobile)"}"#, headers: [("X-Forwarded-For", address)]).status
        }

        func outbox(_ mobile: String) -> Int {
            app.application.runBackgroundWork()
            let encoded = mobile.replacingOccurrences(of: "+", with: "%2B")
            return (app.json(app.request("GET", "/dev/outbox?to=\(encoded)"))["data"] as? [[String: Any]] ?? []).count
        }

        func count(_ table: String) throws -> Int {
            Int(try app.application.database.query("SELECT count(*) AS n FROM \(unsafeSQL: table)")[0].int("n"))
        }
    }

    static let victim = "+919876543210"

    @Test(arguments: Store.allCases)
    func aStrangerCannotSpendANumbersBudget(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try SMSFixture(store)
        defer { f.app.close() }
        let own = f.verification(user: "victim", mobile: Self.victim)
        // Codes for the victim's number, asked on verifications that are not its own, or do not exist.
        for index in 0..<8 {
            let other = f.verification(user: "stranger\(index)", mobile: "+14155550\(100 + index)")
            #expect(f.askCode(other, Self.victim, from: "198.51.100.\(index)") == 202)
            #expect(f.askCode("ver_aaaaaaaaaaaaaaaaaaaaaaaaa\(index % 6 + 2)", Self.victim, from: "203.0.113.\(index)") == 202)
        }
        #expect(f.outbox(Self.victim) == 0)
        // The number's own verification still gets its code.
        #expect(f.askCode(own, Self.victim, from: "192.0.2.1") == 202)
        #expect(f.outbox(Self.victim) == 1)
    }

    @Test(arguments: Store.allCases)
    func aBlockedAddressSpendsNoOneElsesBudget(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try SMSFixture(store)
        defer { f.app.close() }
        let own = f.verification(user: "victim", mobile: Self.victim)
        for index in 0..<20 {
            let other = f.verification(user: "noise\(index)", mobile: "+14155550\(100 + index)")
            #expect(f.askCode(other, "+14155550\(100 + index)", from: "198.51.100.7") == 202)
        }
        // The address is out of budget: refused before the verification's budget is touched…
        #expect(f.askCode(own, Self.victim, from: "198.51.100.7") == 429)
        // …so the owner, from another address, is not in a cooldown.
        #expect(f.askCode(own, Self.victim, from: "192.0.2.1") == 202)
        #expect(f.outbox(Self.victim) == 1)
    }

    @Test(arguments: Store.allCases)
    func spentRateLimitRowsArePruned(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try SMSFixture(store)
        defer { f.app.close() }
        f.app.application.runBackgroundWork()  // the first sweep runs now; the next after the interval
        for index in 0..<50 {
            _ = f.askCode("ver_aaaaaaaaaaaaaaaaaaaaaaaaa\(index % 6 + 2)", Self.victim, from: "203.0.113.\(index)")
        }
        // One bucket per address; none for verifications that do not exist, none for the number.
        #expect(try f.count("rate_limits") == 50)
        f.clock.advance(by: 3600 + 31)
        f.app.application.runBackgroundWork()
        #expect(try f.count("rate_limits") == 0)
    }

    @Test(arguments: Store.allCases)
    func codesAreQueuedSealed_sentAfterTheAnswer_andRetriedWhenTheRelayFails(_ store: Store) throws {
        guard store.isAvailable else { return }
        let relay = try Relay(status: 503)
        defer { relay.stop() }
        let f = try SMSFixture(store, relay: relay)
        defer { f.app.close() }
        let own = f.verification(user: "victim", mobile: Self.victim)
        // The same answer for the verification's number and any other, and no call to the relay
        // while answering: it cannot make the answer slower or different.
        #expect(f.askCode(own, Self.victim, from: "192.0.2.1") == 202)
        f.clock.advance(by: 31)
        #expect(f.askCode(own, "+14155550123", from: "192.0.2.2") == 202)
        #expect(relay.received.all.isEmpty)
        #expect(try f.count("sms_queue") == 1)
        // Sealed: neither the number nor the text is in the store in clear.
        let stored = try f.app.storedBytes()
        #expect(!stored.contains(text: "is your verification code"))
        #expect(!stored.contains(text: "Never share it"))
        f.app.application.runBackgroundWork()
        #expect(relay.received.all.count == 1)
        #expect(relay.received.all.first?.contains("is your verification code") == true)
        // Retried after 5 s and 20 s, then given up (the page offers to send again).
        f.clock.advance(by: 6)
        f.app.application.runBackgroundWork()
        f.clock.advance(by: 21)
        f.app.application.runBackgroundWork()
        #expect(relay.received.all.count == 3)
        #expect(try f.count("sms_queue") == 0)
        f.clock.advance(by: 60)
        f.app.application.runBackgroundWork()
        #expect(relay.received.all.count == 3)
    }
}
