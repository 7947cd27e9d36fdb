import HostedCore
import HostedHTTP

/// `GET /v1/account`: the account the presented API key belongs to, with its branding.
struct AccountRoutes {
    let branding: BrandingService

    private struct AccountBody: Encodable {
        let object = "account"
        let id: String
        let name: String
        let branding: BrandingService.BrandingBody
    }

    /// The account's JSON, as `GET /v1/account` and every branding change answer.
    func body(_ account: Account) throws -> Response {
        let current = try branding.branding(accountID: account.id)
        return try .json(AccountBody(id: account.id.rawValue, name: account.name, branding: branding.apiBody(accountID: account.id, current)))
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/account") { _, context in
            try body(try context.account())
        }
    }
}
