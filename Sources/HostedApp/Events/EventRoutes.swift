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
            var errors: [FieldError] = []
            let page = Self.page(request, known: ["limit", "starting_after"], errors: &errors)
            try Self.refuse(errors)
            guard let (list, hasMore) = try Self.cursor({
                try verifications.events(accountID: account.id, id: id, limit: page.limit, startingAfter: page.startingAfter)
            }) else { throw DomainError.notFound(what: "verification") }
            return Self.list(list, hasMore: hasMore, url: "/v1/verifications/\(id.rawValue)/events")
        })
        routes.add("GET", "/v1/events", guards.authenticated { request, _, account in
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
            try Self.refuse(errors)
            let filter = EventStore.Filter(verificationID: verificationID, type: type)
            let (list, hasMore) = try Self.cursor({
                try events.list(accountID: account.id, filter: filter, limit: page.limit, startingAfter: page.startingAfter)
            })
            return Self.list(list, hasMore: hasMore, url: "/v1/events")
        })
    }

    static func page(_ request: Request, known: Set<String>, errors: inout [FieldError]) -> ListParameters {
        ListParameters(request, known: known, cursor: .event, noun: "an event id", errors: &errors)
    }

    static func refuse(_ errors: [FieldError]) throws {
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The list parameters are not valid.", errors: errors) }
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
