import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// A signed-in journey call: the session cookie must be live for the `{id}` in the path; the
/// session and its verification go into the context. Checked in the header phase too, so an
/// upload without a session is refused before a byte of it is read.
struct JourneySessionAuthentication: Middleware {
    let signIn: SignInService

    static let cookieName = "hosted_session"

    /// Checked again once the body is in (an upload takes time): the handler gets the session
    /// and verification as they are then, not as they were before the body.
    func admit(_ request: Request, context: inout RequestContext) throws {
        let journey = try signedIn(request, context)
        // Every session of one verification is one user: together they take one share of the
        // server's body budget.
        context[BodyHolder.self] = "verification \(journey.verification.id.rawValue)"
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        context[SignedInJourney.self] = try signedIn(request, context)
        return try next(request, context)
    }

    private func signedIn(_ request: Request, _ context: RequestContext) throws -> JourneySession {
        guard let id = ObjectID(.verification, parsing: context.parameters["id"] ?? ""),
              let (session, verification) = try signIn.session(verificationID: id, token: request.cookie(Self.cookieName))
        else { throw SignInService.signInRequired }
        return JourneySession(session: session, verification: verification)
    }
}

/// The signed-in session and its verification, as `JourneySessionAuthentication` found them.
struct JourneySession: Sendable {
    let session: SignInStore.Session
    let verification: Verification
}

enum SignedInJourney: ContextKey {
    typealias Value = JourneySession
}

extension RequestContext {
    /// The journey session; `signin_required` for a route outside `JourneySessionAuthentication`.
    func journey() throws -> (SignInStore.Session, Verification) {
        guard let found = self[SignedInJourney.self] else { throw SignInService.signInRequired }
        return (found.session, found.verification)
    }
}
