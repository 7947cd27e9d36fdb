import Foundation
import HostedCore
import HostedHTTP

/// `GET /v1/account`: the account the presented API key belongs to, with its branding;
/// `POST /v1/api_keys`: a new key of either mode, made with a live key.
struct AccountRoutes {
    let branding: BrandingService
    let accounts: AccountService
    let guards: APIGuards

    private struct AccountBody: Encodable {
        let object = "account"
        let id: String
        let name: String
        let branding: BrandingService.BrandingBody
    }

    /// A new key: the only answer that shows its secret (a replay shows it again only from the
    /// idempotency record, which never holds it: see `keyReplay`).
    private struct KeyBody: Encodable {
        let object = "api_key"
        let id: String
        let secret: String?
        let display_prefix: String
        let livemode: Bool
        let created_at: String
    }

    /// The account's JSON, as `GET /v1/account` and every branding change answer.
    func body(_ account: Account) throws -> Response { try Self.body(account, branding: branding) }

    static func body(_ account: Account, branding: BrandingService) throws -> Response {
        let current = try branding.branding(accountID: account.id)
        return try .json(AccountBody(id: account.id.rawValue, name: account.name, branding: branding.apiBody(accountID: account.id, current)))
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/account") { _, context in
            try body(try context.account())
        }
        routes.add("POST", "/v1/api_keys", guards.idempotent(secret: keyReplay) { request, context, account in
            // A test key cannot make keys: whoever holds only test access must not gain live access.
            guard try context.tenancy().livemode else {
                throw DomainError.forbidden(detail: "API keys are made with a live key (sk_…).", code: .liveKeyRequired)
            }
            var body = try JSONObject(body: request.body)
            let mode = body.string("mode") ?? "live"
            if mode != "live" && mode != "test" { body.addError("mode", "must be live or test") }
            try body.finish()
            let (key, secret) = try accounts.createKey(accountID: account.id, livemode: mode == "live")
            return try .json(KeyBody(id: key.id.rawValue, secret: secret.value, display_prefix: key.displayPrefix,
                                     livemode: key.livemode, created_at: APIObjects.timestamp(key.createdAt) ?? ""), status: 201)
        })
    }

    /// A retried create answers the key without its secret (the record keeps none, and the
    /// secret exists nowhere to be shown again).
    private var keyReplay: APIGuards.SecretReplay {
        APIGuards.SecretReplay(
            record: { response in
                // The record is the answer with the secret taken out.
                guard var object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else { return [] }
                object["secret"] = NSNull()
                return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
            },
            replay: { record, _ in Response.json(bytes: record, status: 201) })
    }
}
