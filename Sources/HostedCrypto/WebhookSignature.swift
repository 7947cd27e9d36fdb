import Foundation
import HostedCore

/// Standard Webhooks 1.0 signing: a secret is `whsec_` and the base64 of 32 random bytes; a
/// message's signature is `v1,` and the base64 of HMAC-SHA256(secret bytes, "id.timestamp.body").
/// While a rotated-out secret still signs, the header carries both, space-separated.
public enum WebhookSignature {
    public static let secretPrefix = "whsec_"
    static let secretByteCount = 32

    /// A fresh secret as the customer sees it.
    public static func newSecret(using random: any RandomSource) -> String {
        secretPrefix + Data(random.bytes(secretByteCount)).base64EncodedString()
    }

    /// The key bytes of a secret (the base64 after `whsec_`); nil when it is not one.
    public static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix),
              let bytes = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count)))
        else { return nil }
        return [UInt8](bytes)
    }

    /// The `webhook-signature` header value: one `v1,` entry per key, in order.
    public static func header(id: String, timestamp: Int64, body: [UInt8], keys: [[UInt8]]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return keys.map { "v1," + Data(Digest.hmacSHA256(key: $0, message: signed)).base64EncodedString() }
            .joined(separator: " ")
    }
}
