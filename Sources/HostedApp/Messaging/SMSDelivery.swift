import Foundation
import HostedCore
import HostedCrypto
import HostedObservability
import HostedStorage

/// Sends the queued sign-in messages (see `SMSQueueStore`) through the configured sender, off
/// the request that asked for them: the answer to that request, and its timing, are the same
/// whether the number matched, and whether the relay is up.
struct SMSDelivery: Sendable {
    let queue: SMSQueueStore
    let sender: any SMSSender
    let box: SecretBox
    let clock: any WallClock
    let log: any ServerLog
    /// Sends by result.
    var metrics: Metrics? = nil
    /// The name a verification's texts begin with (its account's display name), if any.
    var senderName: @Sendable (String) -> String? = { _ in nil }

    /// A code is good for 10 minutes; three tries within the first minute are worth making.
    static let retryDelays: [TimeInterval] = [5, 20]
    /// A claim is given up (and the message sent by someone else) after this long.
    static let lease: TimeInterval = 30

    /// The message as sealed in the queue; the row id is bound as context.
    struct Message: Codable {
        let to: String
        let body: String
    }

    static func seal(_ message: Message, id: ObjectID, box: SecretBox, random: any RandomSource) throws -> [UInt8] {
        try box.seal(Array(JSONEncoder().encode(message)), context: "sms_queue:" + id.rawValue, random: random.bytes(12))
    }

    /// Sends what is due; the number of messages handled.
    @discardableResult
    func deliverDue() -> Int {
        let claimed: [SMSQueueStore.Queued]
        do {
            claimed = try queue.claim(at: clock.now(), lease: Self.lease, limit: 20)
        } catch {
            log.error("sms queue: cannot claim: \(error)", requestID: nil)
            return 0
        }
        for message in claimed { deliver(message) }
        return claimed.count
    }

    private func deliver(_ queued: SMSQueueStore.Queued) {
        do {
            guard let opened = box.open(queued.sealed, context: "sms_queue:" + queued.id),
                  let message = try? JSONDecoder().decode(Message.self, from: Data(opened))
            else {
                // Sealed under another key (rotated) or damaged: it can never be sent.
                log.error("sms \(queued.id) for \(queued.verificationID): cannot be opened; dropped", requestID: nil)
                count("dropped")
                try queue.remove(id: queued.id)
                return
            }
            do {
                // Every text names who is asking ("Acme Bank: 123456 is your…"), whoever queued it.
                let body = senderName(queued.verificationID).map { "\($0): \(message.body)" } ?? message.body
                try sender.send(to: message.to, body: body, verificationID: queued.verificationID)
                count("sent")
                try queue.remove(id: queued.id)
            } catch {
                count("failed")
                if queued.attempts > Self.retryDelays.count {
                    // The page offers "send again" after its cooldown; the user asks for a new code.
                    log.error("sms \(queued.id) for \(queued.verificationID): given up after \(queued.attempts) attempts: \(error)",
                              requestID: nil)
                    try queue.remove(id: queued.id)
                } else {
                    log.error("sms \(queued.id) for \(queued.verificationID): attempt \(queued.attempts) failed: \(error)", requestID: nil)
                    try queue.retry(id: queued.id, at: clock.now().addingTimeInterval(Self.retryDelays[queued.attempts - 1]))
                }
            }
        } catch {
            // The queue itself failed; the lease runs out and the message is tried again.
            log.error("sms \(queued.id): queue update failed: \(error)", requestID: nil)
        }
    }

    private func count(_ result: String) {
        metrics?.increment("hosted_sms_sends_total", help: "SMS send attempts, by result (sent, failed, dropped).",
                           labels: [("result", result)])
    }
}
