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
        routes.add("POST", "/v1/webhook_endpoints", guards.idempotent(secret: replay) { request, _, account in
            var body = try JSONObject(body: request.body)
            let url = body.string("url", required: true)
            let events = body.stringArray("events")
            let description = Self.description(&body)
            try body.finish()
            let filter = try events.map { entries throws(DomainError) in try EventFilter.parse(entries) } ?? .all
            let (endpoint, secret) = try service.create(accountID: account.id, url: url ?? "", events: filter, description: description)
            return Self.response(endpoint, secret: secret, status: 201)
        })
        routes.add("GET", "/v1/webhook_endpoints", guards.authenticated { request, _, account in
            var errors: [FieldError] = []
            let page = ListParameters(request, known: ["limit", "starting_after"], cursor: .webhookEndpoint,
                                      noun: "a webhook endpoint id", errors: &errors)
            try EventRoutes.refuse(errors)
            let (list, hasMore): ([WebhookEndpoint], Bool)
            do {
                (list, hasMore) = try service.store.list(accountID: account.id, limit: page.limit, startingAfter: page.startingAfter)
            } catch is WebhookStore.UnknownCursor {
                throw Self.unknownCursor("webhook endpoint")
            }
            return Self.list(list.map { Self.json($0, secret: nil) }, hasMore: hasMore, url: "/v1/webhook_endpoints")
        })
        routes.add("GET", "/v1/webhook_endpoints/{id}", guards.authenticated { _, context, account in
            Self.response(try endpoint(context, account), secret: nil)
        })
        routes.add("PATCH", "/v1/webhook_endpoints/{id}", guards.idempotent { request, context, account in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let url = body.string("url")
            let events = body.stringArray("events")
            let description = Self.description(&body)
            let status = body.string("status")
            if let status, WebhookEndpoint.Status(rawValue: status) == nil { body.addError("status", "must be enabled or disabled") }
            try body.finish()
            let filter = try events.map { entries throws(DomainError) in try EventFilter.parse(entries) }
            if let url { _ = try service.target(url) }
            let updated = try service.store.update(accountID: account.id, id: id, at: service.clock.now()) { endpoint in
                if let url { endpoint.url = url }
                if let filter { endpoint.events = filter }
                if let description { endpoint.description = description.isEmpty ? nil : description }
                if let status = status.flatMap(WebhookEndpoint.Status.init(rawValue:)), status != endpoint.status {
                    endpoint.status = status
                    endpoint.disabledReason = status == .disabled ? .manual : nil
                }
            }
            if updated.status == .enabled { wake() }
            return Self.response(updated, secret: nil)
        })
        routes.add("DELETE", "/v1/webhook_endpoints/{id}", guards.authenticated { _, context, account in
            let id = try Self.id(context)
            guard try service.store.delete(accountID: account.id, id: id) else { throw DomainError.notFound(what: "webhook endpoint") }
            return try .json(APIObjects.DeletedBody(object: "webhook_endpoint", id: id.rawValue))
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/rotate_secret", guards.authenticated { request, context, account in
            try JSONObject(body: request.body).finish()
            let (endpoint, secret) = try service.rotate(accountID: account.id, id: try Self.id(context))
            return Self.response(endpoint, secret: secret)
        })
        routes.add("GET", "/v1/webhook_endpoints/{id}/deliveries", guards.authenticated { request, context, account in
            let endpoint = try endpoint(context, account)
            var errors: [FieldError] = []
            // Deliveries have their own ids (whd_ and 32 hex digits), not an ObjectID kind.
            let page = ListParameters(request, known: ["limit", "starting_after"], cursor: nil, noun: "a webhook delivery id",
                                      errors: &errors)
            let cursor = request.queryValue("starting_after")
            if let cursor, !Self.isDeliveryID(cursor) {
                errors.append(FieldError(field: "starting_after", message: "must be a webhook delivery id"))
            }
            try EventRoutes.refuse(errors)
            let (list, hasMore): ([WebhookStore.Delivery], Bool)
            do {
                (list, hasMore) = try service.store.deliveries(accountID: account.id, endpointID: endpoint.id, limit: page.limit,
                                                               startingAfter: cursor)
            } catch is WebhookStore.UnknownCursor {
                throw Self.unknownCursor("webhook delivery of this endpoint")
            }
            return Self.list(list.map(Self.json), hasMore: hasMore, url: "/v1/webhook_endpoints/\(endpoint.id.rawValue)/deliveries")
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/recover", guards.idempotent { request, context, account in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let since = body.time("since", required: true)
            try body.finish()
            let queued = try service.recover(accountID: account.id, id: id, since: since ?? Date())
            if queued > 0 { wake() }
            var object = JSONText.Object()
            object.int("queued", queued)
            return .json(bytes: object.finish(), status: 202)
        })
        routes.add("POST", "/v1/webhook_endpoints/{id}/test", guards.idempotent { request, context, account in
            try JSONObject(body: request.body).finish()
            let eventID = try service.sendTest(accountID: account.id, id: try Self.id(context))
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
            replay: { [service] record, account in
                guard let id = ObjectID(.webhookEndpoint, parsing: String(decoding: record, as: UTF8.self)),
                      let endpoint = try service.store.endpoint(accountID: account.id, id: id)
                else { throw DomainError.notFound(what: "webhook endpoint") }
                return Self.response(endpoint, secret: nil, status: 201)
            })
    }

    private func endpoint(_ context: RequestContext, _ account: Account) throws -> WebhookEndpoint {
        guard let endpoint = try service.store.endpoint(accountID: account.id, id: try Self.id(context)) else {
            throw DomainError.notFound(what: "webhook endpoint")
        }
        return endpoint
    }

    static func id(_ context: RequestContext) throws -> ObjectID {
        guard let id = ObjectID(.webhookEndpoint, parsing: context.parameters["id"] ?? "") else {
            throw DomainError.notFound(what: "webhook endpoint")
        }
        return id
    }

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

    static func unknownCursor(_ noun: String) -> DomainError {
        .invalidRequest(detail: "starting_after is not a \(noun).", errors: [FieldError(field: "starting_after", message: "no such \(noun)")])
    }

    static func json(_ endpoint: WebhookEndpoint, secret: String?) -> String {
        var object = JSONText.Object()
        object.string("created_at", RFC3339.format(endpoint.createdAt))
        object.string("description", endpoint.description)
        object.string("disabled_reason", endpoint.disabledReason?.rawValue)
        object.raw("events", JSONText.array(endpoint.events.entries.map(JSONText.quoted)))
        object.string("id", endpoint.id.rawValue)
        object.string("object", "webhook_endpoint")
        if let secret { object.string("secret", secret) }
        object.string("status", endpoint.status.rawValue)
        object.string("url", endpoint.url)
        return object.json
    }

    static func response(_ endpoint: WebhookEndpoint, secret: String?, status: Int = 200) -> Response {
        var response = Response.json(bytes: Array(json(endpoint, secret: secret).utf8), status: status)
        // A reply that carries a secret is never kept by anyone on the way.
        if secret != nil { response.headers.add("Cache-Control", "no-store") }
        return response
    }

    static func json(_ delivery: WebhookStore.Delivery) -> String {
        var object = JSONText.Object()
        object.int("attempt", delivery.attempt)
        object.string("created_at", RFC3339.format(delivery.createdAt))
        if let duration = delivery.durationMilliseconds { object.int("duration_ms", Int(duration)) } else { object.raw("duration_ms", "null") }
        object.string("error", delivery.error)
        object.string("event_id", delivery.eventID)
        object.string("event_type", delivery.eventType)
        object.string("id", delivery.id)
        object.string("next_attempt_at", delivery.nextAttemptAt.map { RFC3339.format($0) })
        object.string("object", "webhook_delivery")
        if let status = delivery.responseStatus { object.int("response_status", status) } else { object.raw("response_status", "null") }
        object.string("status", delivery.status)
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
