import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HostedCore
import HostedCrypto
import HostedStorage

/// Sends a text message. A failure is reported to the user as "try again", never as a crash.
protocol SMSSender: Sendable {
    func send(to number: String, body: String) throws
    /// Sends a message about one verification: the dev outbox keeps the id, so redaction finds
    /// every message the verification was sent, to whichever number it had then.
    func send(to number: String, body: String, verificationID: String) throws
    /// False when nothing could ever be sent (no relay configured): sign-in by code is then
    /// refused for every number alike, instead of queueing messages that cannot go.
    var isConfigured: Bool { get }
}

extension SMSSender {
    var isConfigured: Bool { true }

    func send(to number: String, body: String, verificationID: String) throws {
        try send(to: number, body: body)
    }
}

/// Why a message was not sent.
struct SMSFailure: Error, CustomStringConvertible {
    let description: String
}

/// Dev mode: messages go to the outbox table, shown by `hosted outbox` and `GET /dev/outbox`.
struct OutboxSMSSender: SMSSender {
    let store: SignInStore
    let clock: any WallClock
    let random: any RandomSource

    func send(to number: String, body: String) throws {
        try store.addToOutbox(id: ObjectID(.message, using: random), to: number, body: body, at: clock.now())
    }

    func send(to number: String, body: String, verificationID: String) throws {
        try store.addToOutbox(id: ObjectID(.message, using: random), to: number, body: body, at: clock.now(),
                              verificationID: verificationID)
    }
}

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

/// Neither dev mode nor a relay: every send fails, and the page asks the user to try again.
struct UnconfiguredSMSSender: SMSSender {
    var isConfigured: Bool { false }

    func send(to number: String, body: String) throws {
        throw SMSFailure(description: "no SMS relay configured (HOSTED_SMS_RELAY_URL)")
    }
}
