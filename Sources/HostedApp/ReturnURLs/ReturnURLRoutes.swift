import HostedCore
import HostedHTTP
import HostedStorage

/// `GET/POST /v1/return_urls`, `DELETE /v1/return_urls/{id}`.
struct ReturnURLRoutes {
    let guards: APIGuards
    let registry: ReturnURLRegistry

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/return_urls", guards.authenticated { _, _, account in
            let all = try registry.list(accountID: account.id)
            return try .json(APIObjects.ListBody(url: "/v1/return_urls", has_more: false, data: all.map(Self.body)))
        })
        routes.add("POST", "/v1/return_urls", guards.idempotent { request, _, account in
            var body = try JSONObject(body: request.body)
            let url = body.string("url", required: true)
            try body.finish()
            let (registered, created) = try registry.register(accountID: account.id, url: url ?? "")
            return try .json(Self.body(registered), status: created ? 201 : 200)
        })
        routes.add("DELETE", "/v1/return_urls/{id}", guards.authenticated { _, context, account in
            guard let id = ObjectID(.returnURL, parsing: context.parameters["id"] ?? ""),
                  try registry.remove(accountID: account.id, id: id)
            else { throw DomainError.notFound(what: "return URL") }
            return try .json(APIObjects.DeletedBody(object: "return_url", id: id.rawValue))
        })
    }

    static func body(_ registered: ReturnURLStore.Registered) -> APIObjects.ReturnURLBody {
        APIObjects.ReturnURLBody(id: registered.id.rawValue, url: registered.url, created_at: APIObjects.timestamp(registered.createdAt))
    }
}
