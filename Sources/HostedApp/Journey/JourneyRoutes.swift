import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// The end user's side: the journey page at `/j/{id}` and its API under `/j/{id}/api/…`,
/// authenticated by a session cookie scoped to that journey's path.
struct JourneyRoutes {
    let signIn: SignInService
    let files: StaticFiles
    let publicDirectory: URL
    let publicURL: URL
    let trustedProxies: TrustedProxies
    let cookies: JourneyCookies
    let analytics: AnalyticsService

    static let cookieName = JourneySessionAuthentication.cookieName

    func register(in routes: inout Router.Builder) {
        // The same page for every id, valid or not, and never a redirect: the fragment stays put.
        routes.add("GET", "/j/{id}") { request, context in
            if request.method == "GET", let id = context.parameters["id"], ObjectID(.verification, parsing: id) != nil {
                analytics.opened(verificationID: id, userAgent: request.headers["User-Agent"], referer: request.headers["Referer"])
            }
            return try files.response(for: publicDirectory.appendingPathComponent("journey.html"), request: request,
                               extraHeaders: PageHeaders.journey)
        }
        // Sign-in calls: only from the journey's own origin (checked before their body is read).
        routes.group(SameOrigin(publicURL: publicURL)) { routes in registerSignIn(in: &routes) }
        // Without a session: only submitted and closed states are told, so a returning user
        // sees where things stand instead of a sign-in that can no longer lead anywhere; a
        // decision is told only with the session (the link alone says `closed`).
        routes.add("GET", "/j/{id}/api/status") { request, context in
            let id = try journeyID(context)
            guard let status = try signIn.finishedStatus(verificationID: id, token: cookie(request)) else { throw SignInService.signInRequired }
            return try .json(["status": status])
        }
    }

    private func registerSignIn(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/session", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let secret = body.string("handoff", required: true)
            try body.finish()
            switch try signIn.exchange(verificationID: id, secret: secret ?? "") {
            case .session(let token)?:
                analytics.signedIn(verificationID: id.rawValue, userAgent: request.headers["User-Agent"])
                return try signedIn(id, token)
            case .continuation(let prompt, let claim)?:
                // The customer's app joined the computer's continuation: match the number first.
                var response = try Response.json(ContinuationPromptBody(prompt, status: "match"))
                response.headers.add("Set-Cookie", cookies.claim(id.rawValue, value: claim.value))
                response.headers.add("Cache-Control", "no-store")
                return response
            case nil:
                throw SignInService.signInRequired
            }
        }
        routes.add("POST", "/j/{id}/api/otp", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let mobile = body.string("mobile", required: true)
            try body.finish()
            switch try signIn.requestCode(verificationID: id, mobile: mobile ?? "", clientAddress: trustedProxies.clientAddress(of: request)) {
            case .accepted:
                return try .json(["status": "sent"], status: 202)
            case .unavailable:
                throw DomainError.unavailable(detail: "We could not send the code just now. Please try again.", code: .smsUnavailable,
                                              retryAfterSeconds: 5)
            }
        }
        routes.add("POST", "/j/{id}/api/otp/verify", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let code = body.string("code", required: true)
            try body.finish()
            guard let token = try signIn.verifyCode(verificationID: id, code: code ?? "") else {
                throw DomainError.unauthorized(detail: "That code is not right, or it has expired. Ask for a new code.", code: .codeInvalid)
            }
            analytics.signedIn(verificationID: id.rawValue, userAgent: request.headers["User-Agent"])
            return try signedIn(id, token)
        }
        routes.add("POST", "/j/{id}/api/signout") { request, context in
            _ = try journeyID(context)
            try signIn.endSession(token: cookie(request))
            return Response(status: 204, headers: HTTPHeaders([("Set-Cookie", cookies.session(context.parameters["id"] ?? "", value: "", maxAge: 0))]))
        }
    }

    func journeyID(_ context: RequestContext) throws -> ObjectID {
        guard let id = ObjectID(.verification, parsing: context.parameters["id"] ?? "") else { throw SignInService.signInRequired }
        return id
    }

    private func signedIn(_ id: ObjectID, _ token: BearerSecret) throws -> Response {
        var response = try Response.json(["status": "signed_in"])
        response.headers.add("Set-Cookie", cookies.session(id.rawValue, value: token.value, maxAge: Int(SignInService.sessionLifetime)))
        return response
    }

    func cookie(_ request: Request) -> String? { request.cookie(Self.cookieName) }
}
