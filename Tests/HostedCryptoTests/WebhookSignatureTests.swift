import Foundation
import HostedCore
import HostedCrypto
import HostedTestSupport
import Testing

/// Standard Webhooks 1.0 signatures, checked against the value the official `standardwebhooks`
/// Python library computes for the specification's example (secret, id, timestamp, body).
@Suite struct WebhookSignatureTests {
    @Test func signsAsTheStandardWebhooksLibraryDoes() throws {
        let key = try #require(WebhookSignature.key(of: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = WebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                             body: Array(#"{"test": 2432232314}"#.utf8), keys: [key])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func duringRotationBothSecretsSignSpaceSeparatedNewestFirst() throws {
        let new = try #require(WebhookSignature.key(of: WebhookSignature.newSecret(using: SecureRandom())))
        let old = try #require(WebhookSignature.key(of: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = WebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                             body: Array(#"{"test": 2432232314}"#.utf8), keys: [new, old])
        let entries = header.split(separator: " ")
        #expect(entries.count == 2 && entries.allSatisfy { $0.hasPrefix("v1,") })
        #expect(entries[1] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func secretsAre32RandomBytesBehindThePrefix() throws {
        let a = WebhookSignature.newSecret(using: SecureRandom())
        let b = WebhookSignature.newSecret(using: SecureRandom())
        #expect(a != b && a.hasPrefix("whsec_"))
        #expect(try #require(WebhookSignature.key(of: a)).count == 32)
        #expect(WebhookSignature.key(of: "sk_nope") == nil)
        #expect(WebhookSignature.key(of: "whsec_!!!") == nil)
    }
}
