import HostedCore
import HostedHTTP
import HostedStorage

/// The event log through the customer API: `GET /v1/verifications/{id}/events` (one
/// verification's chain) and `GET /v1/events` (the account's feed), oldest first, cursor-paged.
/// Each event is shown exactly as it was hashed, plus its hashes, so a customer can recompute
/// the chain from the API alone.
struct EventRoutes {
    let guards: APIGuards
    let verifications: VerificationStore
    let events: EventStore

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/verifications/{id}/events", guards.authenticated { request, context, account in
            let id = try VerificationRoutes.id(context)
            let page = try Self.page(request, known: ["limit", "starting_after"])
            let url = "/v1/verifications/\(id.rawValue)/events"
            guard let (list, hasMore) = try Self.cursor({
                try verifications.events(accountID: account.id, id: id, limit: page.limit, startingAfter: page.startingAfter)
            }) else { throw DomainError.notFound(what: "verification") }
            return Self.list(list, hasMore: hasMore, url: url)
        })
        routes.add("GET", "/v1/events", guards.authenticated { request, _, account in
            let page = try Self.page(request, known: ["limit", "starting_after", "type", "verification_id"])
            var errors: [FieldError] = []
            let type = request.queryValue("type")
            if let type, EventType(rawValue: type) == nil {
                errors.append(FieldError(field: "type", message: "is not an event type"))
            }
            var verificationID: ObjectID?
            if let raw = request.queryValue("verification_id") {
                verificationID = ObjectID(.verification, parsing: raw)
                if verificationID == nil { errors.append(FieldError(field: "verification_id", message: "must be a verification id")) }
            }
            guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The list parameters are not valid.", errors: errors) }
            let filter = EventStore.Filter(verificationID: verificationID, type: type)
            let (list, hasMore) = try Self.cursor({
                try events.list(accountID: account.id, filter: filter, limit: page.limit, startingAfter: page.startingAfter)
            })
            return Self.list(list, hasMore: hasMore, url: "/v1/events")
        })
    }

    /// `limit` (1 to 100, default 10) and `starting_after` (an event id); unknown parameters refused.
    static func page(_ request: Request, known: Set<String>) throws -> (limit: Int, startingAfter: ObjectID?) {
        var errors: [FieldError] = []
        for parameter in request.query where !known.contains(parameter.name) {
            errors.append(FieldError(field: parameter.name, message: "is not a known parameter"))
        }
        var limit = 10
        if let raw = request.queryValue("limit") {
            if let value = Int(raw), (1...100).contains(value) { limit = value }
            else { errors.append(FieldError(field: "limit", message: "must be 1 to 100")) }
        }
        var startingAfter: ObjectID?
        if let raw = request.queryValue("starting_after") {
            startingAfter = ObjectID(.event, parsing: raw)
            if startingAfter == nil { errors.append(FieldError(field: "starting_after", message: "must be an event id")) }
        }
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The list parameters are not valid.", errors: errors) }
        return (limit, startingAfter)
    }

    /// Runs a listing, turning an unknown cursor into a field error.
    static func cursor<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is EventStore.UnknownCursor {
            throw DomainError.invalidRequest(detail: "starting_after is not an event of this account.",
                                             errors: [FieldError(field: "starting_after", message: "no such event")])
        }
    }

    static func list(_ events: [Event], hasMore: Bool, url: String) -> Response {
        var list = JSONText.Object()
        list.raw("data", JSONText.array(events.map(\.json)))
        list.raw("has_more", hasMore ? "true" : "false")
        list.string("object", "list")
        list.string("url", url)
        return .json(bytes: Array(list.json.utf8))
    }
}
