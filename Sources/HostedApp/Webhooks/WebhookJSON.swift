import HostedCore
import HostedHTTP
import HostedStorage

/// Webhook endpoints and delivery attempts as the API writes them (members sorted).
enum WebhookJSON {
    static func endpoint(_ endpoint: WebhookEndpoint, secret: String?) -> String {
        var object = JSONText.Object()
        object.string("created_at", RFC3339.format(endpoint.createdAt))
        object.string("description", endpoint.description)
        object.string("disabled_reason", endpoint.disabledReason?.rawValue)
        object.raw("events", JSONText.array(endpoint.events.entries.map(JSONText.quoted)))
        object.string("id", endpoint.id.rawValue)
        object.bool("livemode", endpoint.livemode)
        object.string("object", "webhook_endpoint")
        if let secret { object.string("secret", secret) }
        object.string("status", endpoint.status.rawValue)
        object.string("url", endpoint.url)
        return object.json
    }

    /// A delivery attempt, in its endpoint's mode (`livemode`).
    static func delivery(_ delivery: WebhookStore.Delivery, livemode: Bool) -> String {
        var object = JSONText.Object()
        object.int("attempt", delivery.attempt)
        object.string("created_at", RFC3339.format(delivery.createdAt))
        if let duration = delivery.durationMilliseconds { object.int("duration_ms", Int(duration)) } else { object.raw("duration_ms", "null") }
        object.string("error", delivery.error)
        object.string("event_id", delivery.eventID)
        object.string("event_type", delivery.eventType)
        object.string("id", delivery.id)
        object.bool("livemode", livemode)
        object.string("next_attempt_at", delivery.nextAttemptAt.map { RFC3339.format($0) })
        object.string("object", "webhook_delivery")
        if let status = delivery.responseStatus { object.int("response_status", status) } else { object.raw("response_status", "null") }
        object.string("status", delivery.status.rawValue)
        return object.json
    }

    static func list(_ items: [String], hasMore: Bool, url: String) -> Response {
        var list = JSONText.Object()
        list.raw("data", JSONText.array(items))
        list.raw("has_more", hasMore ? "true" : "false")
        list.string("object", "list")
        list.string("url", url)
        return .json(bytes: Array(list.json.utf8))
    }
}
