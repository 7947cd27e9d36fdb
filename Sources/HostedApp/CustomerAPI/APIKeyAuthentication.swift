import HostedCore
import HostedHTTP

/// The customer API's authentication: `Authorization: Bearer sk_…` must name a live key, checked
/// in the header phase too (a body is read only for a live key); the key's account is put into
/// the context for the handlers.
struct APIKeyAuthentication: Middleware {
    let accounts: AccountService

    func admit(_ request: Request, context: RequestContext) throws {
        _ = try accounts.authenticate(authorization: request.headers["Authorization"])
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        context[AuthenticatedAccount.self] = try accounts.authenticate(authorization: request.headers["Authorization"])
        return try next(request, context)
    }
}

/// The account `APIKeyAuthentication` found.
enum AuthenticatedAccount: ContextKey {
    typealias Value = Account
}

extension RequestContext {
    /// The authenticated account; `unauthenticated` for a route outside `APIKeyAuthentication`.
    func account() throws -> Account {
        guard let account = self[AuthenticatedAccount.self] else { throw DomainError.unauthenticated }
        return account
    }
}
