import HostedCore
import HostedHTTP

/// The customer API's authentication: `Authorization: Bearer sk_…` must name a live key, checked
/// in the header phase too (a body is read only for a live key); the key's account is put into
/// the context for the handlers. A request with a body is authenticated once, in the header
/// phase: the key was live when its body was let in.
struct APIKeyAuthentication: Middleware {
    let accounts: AccountService

    func admit(_ request: Request, context: inout RequestContext) throws {
        try authenticate(request, &context)
        // An account's keys together take one share of the server's body budget.
        if let account = context[AuthenticatedAccount.self] { context[BodyHolder.self] = "account \(account.id.rawValue)" }
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        if context[AuthenticatedKey.self] == nil { try authenticate(request, &context) }
        return try next(request, context)
    }

    private func authenticate(_ request: Request, _ context: inout RequestContext) throws {
        let caller = try accounts.caller(authorization: request.headers["Authorization"])
        context[AuthenticatedAccount.self] = caller.account
        context[AuthenticatedKey.self] = caller.keyID
        context[AuthenticatedMode.self] = caller.livemode
    }
}

/// The account `APIKeyAuthentication` found.
enum AuthenticatedAccount: ContextKey {
    typealias Value = Account
}

/// The id of the API key `APIKeyAuthentication` found: the actor of the events it causes.
enum AuthenticatedKey: ContextKey {
    typealias Value = ObjectID
}

/// The mode of the key `APIKeyAuthentication` found: true live, false test.
enum AuthenticatedMode: ContextKey {
    typealias Value = Bool
}

extension RequestContext {
    /// The account and mode of an API call's key: the data it may see and change.
    func tenancy() throws -> Tenancy {
        guard let account = self[AuthenticatedAccount.self], let livemode = self[AuthenticatedMode.self] else {
            throw DomainError.unauthenticated
        }
        return Tenancy(accountID: account.id, livemode: livemode)
    }

    /// The event actor of an API call: its key.
    func apiActor() throws -> EventActor {
        guard let key = self[AuthenticatedKey.self] else { throw DomainError.unauthenticated }
        return .apiKey(key)
    }

    /// The authenticated account; `unauthenticated` for a route outside `APIKeyAuthentication`.
    func account() throws -> Account {
        guard let account = self[AuthenticatedAccount.self] else { throw DomainError.unauthenticated }
        return account
    }
}
