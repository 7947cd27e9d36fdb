import HostedCore
import HostedHTTP

/// `GET /v1/account`: the account the presented API key belongs to.
struct AccountRoutes {

    private struct AccountBody: Encodable {
        let object = "account"
        let id: String
        let name: String
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/account") { _, context in
            let account = try context.account()
            return try .json(AccountBody(id: account.id.rawValue, name: account.name))
        }
    }
}
