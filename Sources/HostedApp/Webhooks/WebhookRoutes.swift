import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// `/v1/webhook_endpoints`: create (the secret shown once), list, get, patch, delete,
/// `rotate_secret`, `deliveries`, `recover`, `test`.
struct WebhookRoutes {
    let guards: APIGuards
    let service: WebhookService
    let wake: @Sendable () -> Void

    func register(in routes: inout Router.Builder) {
        routes.add("POST", "/v1/webhook_endpoints", guards.idempotent(secret: replay) { request, context, _ in
            var body = try JSONObject(body: request.body)
            let url = body.string("url", required: true)
            let events = body.stringArray("events")
            let description = Self.description(&body)
            try body.finish()
            let filter = try events.map { entries throws(DomainError) in try EventFilter.parse(entries) } ?? .all
            let (endpoint, secret) = try service.create(tenancy: try context.tenancy(), url: url ?? "", events: filter, description: description)
            return Self.response(endpoint, secret: secret, status: 201)
        })
        routes.add("GET", "/v1/webhook_endpoints", guards.authenticated { request, context, _ in
            var errors: [FieldError] = []
            let page = ListParameters(request, known: ["limit", "starting_after"], cursor: .webhookEndpoint,
                                      noun: "a webhook endpoint id", errors: &errors)
            try ListParameters.refuse(errors)
            let (list, hasMore) = try service.list(tenancy: try context.tenancy(), page: page)
            return WebhookJSON.list(list.map { WebhookJSON.endpoint($0, secret: nil) }, hasMore: hasMore, url: "/v1/webhook_endpoints")
        })
        routes.add("GET", "/v1/webhook_endpoints/{id}", guards.authenticated { _, context, _ in
            Self.response(try endpoint(context), secret: nil)
        })
        routes.add("PATCH", "/v1/webhook_endpoints/{id}", guards.idempotent { request, context, _ in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let url = body.string("url")
            let events = body.stringArray("events")
            let description = Self.description(&body)
            let status = body.string("status")
            if let status, WebhookEndpoint.Status(rawValue: status) == nil { body.addError("status", "must be enabled or disabled") }
            try body.finish()
            let filter = try events.map { entries throws(DomainError) in try EventFilter.parse(entries) }
            let updated = try service.update(tenancy: try context.tenancy(), id: id, .init(
                url: url, events: filter, description: description, status: status.flatMap(WebhookEndpoint.Status.init(rawValue:))))
            if updated.status == .enabled { wake() }
            return Self.response(updated, secret: nil)
        })
        routes.add("DELETE", "/v1/webhook_endpoints/{id}", guards.authenticated { _, context, _ in
            let id = try Self.id(context)
            try service.delete(tenancy: try context.tenancy(), id: id)
            return try .json(APIObjects.DeletedBody(object: "webhook_endpoint", id: id.rawValue))
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/rotate_secret", guards.authenticated { request, context, _ in
            try JSONObject(body: request.body).finish()
            let (endpoint, secret) = try service.rotate(tenancy: try context.tenancy(), id: try Self.id(context))
            return Self.response(endpoint, secret: secret)
        })
        routes.add("GET", "/v1/webhook_endpoints/{id}/deliveries", guards.authenticated { request, context, _ in
            let endpoint = try endpoint(context)
            var errors: [FieldError] = []
            // Deliveries have their own ids (whd_ and 32 hex digits), not an ObjectID kind.
            let page = ListParameters(request, known: ["limit", "starting_after"], cursor: nil, noun: "a webhook delivery id",
                                      errors: &errors)
            let cursor = request.queryValue("starting_after")
            if let cursor, !Self.isDeliveryID(cursor) {
                errors.append(FieldError(field: "starting_after", message: "must be a webhook delivery id"))
            }
            try ListParameters.refuse(errors)
            let (list, hasMore) = try service.deliveries(tenancy: try context.tenancy(), endpointID: endpoint.id, limit: page.limit,
                                                         startingAfter: cursor)
            return WebhookJSON.list(list.map { WebhookJSON.delivery($0, livemode: endpoint.livemode) }, hasMore: hasMore,
                                    url: "/v1/webhook_endpoints/\(endpoint.id.rawValue)/deliveries")
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/recover", guards.idempotent { request, context, _ in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let since = body.time("since", required: true)
            try body.finish()
            let queued = try service.recover(tenancy: try context.tenancy(), id: id, since: since ?? Date())
            if queued > 0 { wake() }
            var object = JSONText.Object()
            object.int("queued", queued)
            return .json(bytes: object.finish(), status: 202)
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/test", guards.idempotent { request, context, _ in
            try JSONObject(body: request.body).finish()
            let eventID = try service.sendTest(tenancy: try context.tenancy(), id: try Self.id(context))
            wake()
            var object = JSONText.Object()
            object.string("event_id", eventID.rawValue)
            object.int("queued", 1)
            return .json(bytes: object.finish(), status: 202)
        })
    }

    /// A retry of a create with the same `Idempotency-Key` answers with the endpoint it made,
    /// without its secret: the secret is shown once, and the stored reply never holds it
    /// (`rotate_secret` makes a new one).
    var replay: APIGuards.SecretReplay {
        APIGuards.SecretReplay(
            record: { response in
                let id = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["id"] as? String ?? ""
                return Array(id.utf8)
            },
            replay: { [service] record, tenancy in
                guard let id = ObjectID(.webhookEndpoint, parsing: String(decoding: record, as: UTF8.self)) else {
                    throw DomainError.notFound(what: "webhook endpoint")
                }
                return Self.response(try service.endpoint(tenancy: tenancy, id: id), secret: nil, status: 201)
            })
    }

    private func endpoint(_ context: RequestContext) throws -> WebhookEndpoint {
        try service.endpoint(tenancy: try context.tenancy(), id: try Self.id(context))
    }

    static func id(_ context: RequestContext) throws -> ObjectID { try context.id(.webhookEndpoint, what: "webhook endpoint") }

    static func description(_ body: inout JSONObject) -> String? {
        let description = body.string("description")
        if let description, description.unicodeScalars.count > WebhookEndpoint.maximumDescriptionLength {
            body.addError("description", "must be at most \(WebhookEndpoint.maximumDescriptionLength) characters")
        }
        return description
    }

    static func isDeliveryID(_ text: String) -> Bool {
        text.hasPrefix("whd_") && text.utf8.count == 36 && text.utf8.dropFirst(4).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func response(_ endpoint: WebhookEndpoint, secret: String?, status: Int = 200) -> Response {
        var response = Response.json(bytes: Array(WebhookJSON.endpoint(endpoint, secret: secret).utf8), status: status)
        // A reply that carries a secret is never kept by anyone on the way.
        if secret != nil { response.headers.add("Cache-Control", "no-store") }
        return response
    }
}
