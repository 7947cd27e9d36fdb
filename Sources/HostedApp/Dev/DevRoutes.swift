import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// Dev mode only: `GET /dev/outbox?to=NUMBER`, the SMS messages that would have been sent, and
/// `GET /dev/webhooks`, the 50 newest webhook messages with their attempts.
struct DevRoutes {
    let service: DevService

    private struct Message: Encodable {
        let to: String
        let body: String
        let created_at: String?
    }

    private struct Outbox: Encodable {
        let data: [Message]
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/dev/outbox") { request, _ in
            let number = request.queryValue("to").flatMap { MobileNumber.normalized($0) ?? $0 }
            let messages = try service.outbox(to: number)
            return try .json(Outbox(data: messages.map { Message(to: $0.to, body: $0.body, created_at: APIObjects.timestamp($0.createdAt)) }))
        }
        routes.add("GET", "/dev/webhooks") { _, _ in
            let (grouped, urls) = try service.recentWebhookMessages()
            let messages = grouped.map { list -> String in
                var object = JSONText.Object()
                object.raw("attempts", JSONText.array(list.map { WebhookJSON.delivery($0, livemode: true) }))
                object.string("endpoint_id", list.first?.endpointID)
                object.string("event_id", list.first?.eventID)
                object.string("event_type", list.first?.eventType)
                object.string("url", list.first.flatMap { urls[$0.endpointID] })
                return object.json
            }
            var body = JSONText.Object()
            body.raw("data", JSONText.array(messages))
            return .json(bytes: Array(body.json.utf8))
        }
    }
}
