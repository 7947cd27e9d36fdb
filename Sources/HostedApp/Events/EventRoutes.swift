import HostedCore
import HostedHTTP
import HostedStorage

/// The event log through the customer API: `GET /v1/verifications/{id}/events` (one
/// verification's chain) and `GET /v1/events` (the account's feed), oldest first, cursor-paged.
/// Each event is shown exactly as it was hashed, plus its hashes, so a customer can recompute
/// the chain from the API alone.
struct EventRoutes {
    let guards: APIGuards
    let service: EventService

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/verifications/{id}/events", guards.authenticated { request, context, _ in
            let id = try context.verificationID()
            var errors: [FieldError] = []
            let page = Self.page(request, known: ["limit", "starting_after"], errors: &errors)
            try ListParameters.refuse(errors)
            let (list, hasMore) = try service.chain(tenancy: try context.tenancy(), verificationID: id, page: page)
            return Self.list(list, hasMore: hasMore, url: "/v1/verifications/\(id.rawValue)/events")
        })
        routes.add("GET", "/v1/events", guards.authenticated { request, context, _ in
            var errors: [FieldError] = []
            let page = Self.page(request, known: ["limit", "starting_after", "type", "verification_id"], errors: &errors)
            let type = request.queryValue("type")
            if let type, EventType(rawValue: type) == nil {
                errors.append(FieldError(field: "type", message: "is not an event type"))
            }
            var verificationID: ObjectID?
            if let raw = request.queryValue("verification_id") {
                verificationID = ObjectID(.verification, parsing: raw)
                if verificationID == nil { errors.append(FieldError(field: "verification_id", message: "must be a verification id")) }
            }
            try ListParameters.refuse(errors)
            let (list, hasMore) = try service.feed(tenancy: try context.tenancy(), filter: EventStore.Filter(verificationID: verificationID, type: type),
                                                   page: page)
            return Self.list(list, hasMore: hasMore, url: "/v1/events")
        })
    }

    private static func page(_ request: Request, known: Set<String>, errors: inout [FieldError]) -> ListParameters {
        ListParameters(request, known: known, cursor: .event, noun: "an event id", errors: &errors)
    }

    private static func list(_ events: [Event], hasMore: Bool, url: String) -> Response {
        var list = JSONText.Object()
        list.raw("data", JSONText.array(events.map(\.json)))
        list.raw("has_more", hasMore ? "true" : "false")
        list.string("object", "list")
        list.string("url", url)
        return .json(bytes: Array(list.json.utf8))
    }
}
