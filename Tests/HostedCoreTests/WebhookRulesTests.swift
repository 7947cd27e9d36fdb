import Foundation
import HostedCore
import Testing

/// The rules webhooks follow before any I/O: which addresses they may go to, which URLs, which
/// event filters, when they are retried, and the body they carry.
@Suite struct WebhookRulesTests {
    static func v4(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0)! } }
    static func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    @Test(arguments: [
        ("8.8.8.8", AddressPolicy.Verdict.public), ("93.184.216.34", .public), ("127.0.0.1", .loopback), ("127.9.9.9", .loopback),
        ("10.1.2.3", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.1", .public),
        ("192.168.1.1", .private), ("100.64.0.1", .private), ("169.254.1.1", .linkLocal), ("169.254.169.254", .metadata),
        ("100.100.100.200", .metadata), ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("0.0.0.0", .reserved),
        ("255.255.255.255", .reserved), ("240.0.0.1", .reserved), ("198.18.0.1", .reserved), ("192.0.2.1", .reserved),
    ])
    func ipv4AddressesAreJudgedByTheirRange(_ address: String, _ verdict: AddressPolicy.Verdict) {
        #expect(AddressPolicy.classify(Self.v4(address)) == verdict, "\(address)")
    }

    @Test func ipv6AddressesAreJudgedIncludingTheIPv4TheyCarry() {
        #expect(AddressPolicy.classify(Self.v6([0, 0, 0, 0, 0, 0, 0, 1])) == .loopback)                      // ::1
        #expect(AddressPolicy.classify(Self.v6([0, 0, 0, 0, 0, 0, 0, 0])) == .reserved)                      // ::
        #expect(AddressPolicy.classify(Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x0A00, 0x0001])) == .private)        // ::ffff:10.0.0.1
        #expect(AddressPolicy.classify(Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 0xA9FE])) == .metadata)       // ::ffff:169.254.169.254
        #expect(AddressPolicy.classify(Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001])) == .loopback)       // ::ffff:127.0.0.1
        #expect(AddressPolicy.classify(Self.v6([0x64, 0xFF9B, 0, 0, 0, 0, 0xC0A8, 0x0101])) == .private)     // 64:ff9b::192.168.1.1
        #expect(AddressPolicy.classify(Self.v6([0x2002, 0x0A00, 0x0001, 0, 0, 0, 0, 1])) == .private)        // 6to4 of 10.0.0.1
        #expect(AddressPolicy.classify(Self.v6([0xFD00, 0x0EC2, 0, 0, 0, 0, 0, 0x254])) == .metadata)        // fd00:ec2::254
        #expect(AddressPolicy.classify(Self.v6([0xFC00, 0, 0, 0, 0, 0, 0, 1])) == .private)
        #expect(AddressPolicy.classify(Self.v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])) == .linkLocal)
        #expect(AddressPolicy.classify(Self.v6([0xFF02, 0, 0, 0, 0, 0, 0, 1])) == .multicast)
        #expect(AddressPolicy.classify(Self.v6([0x2001, 0x0DB8, 0, 0, 0, 0, 0, 1])) == .reserved)
        #expect(AddressPolicy.classify(Self.v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111])) == .public)
        #expect(AddressPolicy.classify([1, 2, 3]) == .reserved)
    }

    @Test func onlyPublicAddressesAreAllowedAndLoopbackOnlyInDevMode() {
        #expect(AddressPolicy.allows(.public, devMode: false))
        #expect(!AddressPolicy.allows(.loopback, devMode: false))
        #expect(AddressPolicy.allows(.loopback, devMode: true))
        for verdict in [AddressPolicy.Verdict.private, .linkLocal, .metadata, .multicast, .reserved] {
            #expect(!AddressPolicy.allows(verdict, devMode: true))
        }
    }

    @Test func urlRulesComeBeforeAnyAddress() throws {
        let production = WebhookURLPolicy(devMode: false)
        let dev = WebhookURLPolicy(devMode: true)
        let target = try production.validate("https://Hooks.Example.com:8443/in?x=1")
        #expect(target.url == "https://Hooks.Example.com:8443/in?x=1" && target.scheme == "https")
        #expect(target.host == "hooks.example.com" && target.port == 8443)
        #expect(try production.validate("https://[2606:4700::1111]/h").host == "2606:4700::1111")
        #expect(try dev.validate("http://127.0.0.1:9000/h").port == 9000)
        for bad in ["http://127.0.0.1/h", "ftp://x.example/h", "https://user:pw@x.example/h", "https://x.example/h#frag",
                    "https://x.example /h", "https:///h", "//x.example/h", String(repeating: "a", count: 2100)] {
            #expect(throws: DomainError.self, "\(bad)") { try production.validate(bad) }
        }
        do {
            _ = try production.validate("https://user@x.example/")
            Issue.record("accepted user information")
        } catch {
            guard case .invalidRequest(_, _, let code) = error else { Issue.record("\(error)"); return }
            #expect(code == .webhookURLNotAllowed)
        }
    }

    @Test func eventFiltersTakeWildcardsAndKnownTypesOnly() throws {
        #expect(EventFilter.all.matches("verification.approved"))
        let filter = try EventFilter.parse(["verification.approved", "verification.rejected"])
        #expect(filter.entries == ["verification.approved", "verification.rejected"])
        #expect(filter.matches("verification.rejected") && !filter.matches("verification.created"))
        #expect(try EventFilter.parse(["verification.*"]).matches("verification.expired"))
        #expect(!(try EventFilter.parse(["verification.*"]).matches("webhook.test")))
        for bad in [[], ["verification.nope"], ["*x"], ["*", "*"], ["verification.approved", "verification.approved"],
                    Array(repeating: "*", count: 33)] {
            #expect(throws: DomainError.self, "\(bad)") { try EventFilter.parse(bad) }
        }
    }

    @Test func retriesFollowTheScheduleWithJitterAndRetryAfterCappedAtTheNextStep() throws {
        let standard = RetrySchedule.standard
        #expect(standard.delays == [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400])
        #expect(standard.delay(afterFailedAttempt: 1, jitter: 0) == 4.5)
        #expect(standard.delay(afterFailedAttempt: 1, jitter: 1) == 5.5)
        #expect(standard.delay(afterFailedAttempt: 2, jitter: 0.5) == 300)
        #expect(standard.delay(afterFailedAttempt: 9, jitter: 0.5) == 86400)
        #expect(standard.delay(afterFailedAttempt: 10, jitter: 0.5) == nil)   // out of retries: failed
        #expect(standard.delay(afterFailedAttempt: 0, jitter: 0.5) == nil)
        // Retry-After replaces the step, up to the step after it.
        #expect(standard.delay(afterFailedAttempt: 1, jitter: 0.5, retryAfter: 60) == 60)
        #expect(standard.delay(afterFailedAttempt: 1, jitter: 0.5, retryAfter: 9999) == 300)
        #expect(standard.delay(afterFailedAttempt: 9, jitter: 0.5, retryAfter: 999_999) == 86400)
        let parsed = try #require(RetrySchedule(parsing: "1, 2,3"))
        #expect(parsed.delays == [1, 2, 3])
        for bad in ["", "1,,2", "-1", "1.5", "x", "2592001", String(repeating: "1,", count: 20) + "1", "99999999999999999999"] {
            #expect(RetrySchedule(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func theBodyIsThinAndNamesTheEventAndStatus() throws {
        let event = Event(id: ObjectID(.event, parsing: "evt_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
                          verificationID: ObjectID(.verification, parsing: "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, sequence: 3,
                          type: "verification.approved", actorKind: "api_key", actorID: "key_x", data: "{}",
                          createdAt: Date(timeIntervalSince1970: 1_796_000_000.123), previousHash: nil, hash: "h")
        #expect(WebhookMessage.body(for: event, status: .approved) ==
            #"{"type":"verification.approved","timestamp":"2026-11-30T00:53:20.123Z","data":{"object":"event","id":"evt_aaaaaaaaaaaaaaaaaaaaaaaaaa","verification_id":"ver_aaaaaaaaaaaaaaaaaaaaaaaaaa","sequence":3,"status":"approved","livemode":true}}"#)
        // A test verification's event says so, in the body every attempt sends.
        let testEvent = Event(id: event.id, accountID: event.accountID, verificationID: event.verificationID, sequence: 3,
                              type: event.type, actorKind: "api_key", actorID: "key_x", data: "{}", createdAt: event.createdAt,
                              previousHash: nil, hash: "h", livemode: false)
        #expect(WebhookMessage.body(for: testEvent, status: .approved).hasSuffix(#""status":"approved","livemode":false}}"#))
        let test = WebhookMessage.testBody(eventID: event.id, at: Date(timeIntervalSince1970: 1_796_000_000))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(test.utf8)) as? [String: Any])
        #expect(parsed["type"] as? String == "webhook.test")
        #expect((parsed["data"] as? [String: Any])?["verification_id"] is NSNull)
        #expect((parsed["data"] as? [String: Any])?["livemode"] as? Bool == true)
    }
}
