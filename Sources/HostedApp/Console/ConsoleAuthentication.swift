import Foundation
import HostedCore
import HostedHTTP

/// A console call: the console session cookie must be live; its operator goes into the context.
/// Checked in the header phase too, so a body is read only for a live session.
struct ConsoleSessionAuthentication: Middleware {
    let console: ConsoleService
    /// Admin-only routes (managing operators).
    var adminOnly = false

    static let cookieName = "hosted_console"

    func admit(_ request: Request, context: inout RequestContext) throws {
        let op = try signedIn(request)
        context[SignedInOperator.self] = op
        context[BodyHolder.self] = "operator \(op.id.rawValue)"
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        context[SignedInOperator.self] = try signedIn(request)
        return try next(request, context)
    }

    private func signedIn(_ request: Request) throws -> Operator {
        guard let op = try console.session(token: request.cookie(Self.cookieName)) else { throw Self.signInRequired }
        if adminOnly && op.role != .admin {
            throw DomainError.forbidden(detail: "Only an admin can manage operators.", code: .operatorRoleRequired)
        }
        return op
    }

    static let signInRequired = DomainError.unauthorized(detail: "Sign in to the console to continue.", code: .consoleSigninRequired)
}

enum SignedInOperator: ContextKey {
    typealias Value = Operator
}

extension RequestContext {
    /// The signed-in operator; `console_signin_required` outside `ConsoleSessionAuthentication`.
    func signedInOperator() throws -> Operator {
        guard let op = self[SignedInOperator.self] else { throw ConsoleSessionAuthentication.signInRequired }
        return op
    }
}
