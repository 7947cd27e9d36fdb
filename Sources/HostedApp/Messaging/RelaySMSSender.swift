import Foundation
import FoundationNetworking
import HostedCore
import HostedCrypto
import HostedStorage

/// Production: POSTs `{"to", "body"}` as JSON to an HTTPS relay, signed with
/// `X-Hosted-Signature: t=UNIX,v1=HEX(HMAC-SHA256(secret, "UNIX.BODY"))` so the relay can check
/// the message is ours and fresh.
struct RelaySMSSender: SMSSender {
    let url: URL
    let secret: String
    let clock: any WallClock
    /// How long to wait for the relay before telling the user to try again.
    static let timeout: TimeInterval = 5

    func send(to number: String, body: String) throws {
        let payload = try JSONSerialization.data(withJSONObject: ["to": number, "body": body], options: [.sortedKeys])
        let timestamp = String(Int(clock.now().timeIntervalSince1970))
        let signature = Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array((timestamp + ".").utf8) + Array(payload)))
        var request = URLRequest(url: url, timeoutInterval: Self.timeout)
        request.httpMethod = "POST"
        request.httpBody = payload
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("t=\(timestamp),v1=\(signature)", forHTTPHeaderField: "X-Hosted-Signature")
        let reply: OutboundHTTP.Reply
        do {
            reply = try OutboundHTTP.send(request, maximumBytes: 4096)
        } catch {
            throw SMSFailure(description: "SMS relay: \(error)")
        }
        guard (200..<300).contains(reply.status) else { throw SMSFailure(description: "SMS relay answered \(reply.status)") }
    }
}
