import Foundation
import HostedCore
import HostedStorage

/// Dev mode only: what would have left the machine — the SMS outbox and the newest webhook
/// messages with their attempts.
struct DevService: Sendable {
    let signIn: SignInStore
    let webhooks: WebhookStore

    /// The SMS messages that would have been sent, to one number or to all.
    func outbox(to number: String?) throws -> [SignInStore.OutboxMessage] {
        try signIn.outbox(to: number)
    }

    /// The 50 newest webhook messages (endpoint and event), newest first, each with its attempts
    /// newest first; and the URL of each endpoint still there.
    func recentWebhookMessages() throws -> (messages: [[WebhookStore.Delivery]], urls: [String: String]) {
        let attempts = try webhooks.recentDeliveries(limit: 500)
        var order: [String] = []
        var grouped: [String: [WebhookStore.Delivery]] = [:]
        for attempt in attempts {
            let key = attempt.endpointID + " " + attempt.eventID
            if grouped[key] == nil {
                guard order.count < 50 else { continue }
                order.append(key)
            }
            grouped[key, default: []].append(attempt)
        }
        let urls = try webhooks.targets(endpointIDs: Array(Set(attempts.map(\.endpointID))), at: Date()).mapValues(\.url)
        return (order.map { grouped[$0] ?? [] }, urls)
    }
}
