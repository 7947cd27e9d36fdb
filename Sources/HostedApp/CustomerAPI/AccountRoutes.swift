import HostedCore
import HostedHTTP

/// `GET /v1/account`: the account the presented API key belongs to.
struct AccountRoutes {
    let accounts: AccountService

    private struct AccountBody: Encodable {
        let object = "account"
        let id: String
        let name: String
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/account") { request, _ in
            let account = try accounts.authenticate(authorization: request.headers["Authorization"])
            return try .json(AccountBody(id: account.id.rawValue, name: account.name))
        }
    }
}
