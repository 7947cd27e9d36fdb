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
    let trustedProxies: Set<String>
    let returnURLs: ReturnURLRegistry

    static let cookieName = JourneySessionAuthentication.cookieName

    func register(in routes: inout Router.Builder) {
        // The same page for every id, valid or not, and never a redirect: the fragment stays put.
        routes.add("GET", "/j/{id}") { request, _ in
            try files.response(for: publicDirectory.appendingPathComponent("journey.html"), request: request,
                               extraHeaders: PageHeaders.journey)
        }
        // Sign-in calls: only from the journey's own origin (checked before their body is read).
        routes.group(SameOrigin(publicURL: publicURL)) { routes in registerSignIn(in: &routes) }
        // Signed in: the page asks for the journey's state.
        routes.group(JourneySessionAuthentication(signIn: signIn)) { routes in
            routes.add("GET", "/j/{id}/api/state") { _, context in
                let (session, verification) = try context.journey()
                return try journeyState(verification, session)
            }
        }
        // Without a session: only submitted and closed states are told, so a returning user
        // sees where things stand instead of a sign-in that can no longer lead anywhere.
        routes.add("GET", "/j/{id}/api/status") { _, context in
            let id = try journeyID(context)
            guard let verification = try signIn.verifications.verification(id: id),
                  verification.status == .submitted || verification.status.isClosed
            else { throw Self.signInRequired }
            return try .json(["status": verification.status.rawValue])
        }
    }

    private func registerSignIn(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/session", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let secret = body.string("handoff", required: true)
            try body.finish()
            guard let token = try signIn.exchange(verificationID: id, secret: secret ?? "") else {
                throw Self.signInRequired
            }
            return try signedIn(id, token)
        }
        routes.add("POST", "/j/{id}/api/otp", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let mobile = body.string("mobile", required: true)
            try body.finish()
            switch try signIn.requestCode(verificationID: id, mobile: mobile ?? "", clientAddress: clientAddress(request)) {
            case .accepted:
                return try .json(["status": "sent"], status: 202)
            case .unavailable:
                throw Problem(status: 503, code: .smsUnavailable, title: "Service Unavailable",
                              detail: "We could not send the code just now. Please try again.", headers: [("Retry-After", "5")])
            }
        }
        routes.add("POST", "/j/{id}/api/otp/verify", bodyLimit: 4096) { request, context in
            let id = try journeyID(context)
            var body = try JSONObject(body: request.body)
            let code = body.string("code", required: true)
            try body.finish()
            guard let token = try signIn.verifyCode(verificationID: id, code: code ?? "") else {
                throw Problem(status: 401, code: .codeInvalid, title: "Unauthorized",
                              detail: "That code is not right, or it has expired. Ask for a new code.")
            }
            return try signedIn(id, token)
        }
        routes.add("POST", "/j/{id}/api/signout") { request, context in
            _ = try journeyID(context)
            try signIn.endSession(token: cookie(request))
            return Response(status: 204, headers: HTTPHeaders([("Set-Cookie", sessionCookie(context.parameters["id"] ?? "", value: "", maxAge: 0))]))
        }
    }

    func journeyState(_ verification: Verification, _ session: SignInStore.Session) throws -> Response {
        let workflow = try signIn.workflows.workflow(accountID: verification.accountID, key: verification.workflowKey,
                                                     version: verification.workflowVersion)
        let returnURL = try returnURLs.stillRegistered(session.returnURL ?? verification.returnURL, accountID: verification.accountID)
        return try .json(JourneyState(verification, returnURL: returnURL, workflow: workflow))
    }

    /// Every sign-in failure looks the same.
    static let signInRequired = Problem(status: 401, code: .signinRequired, title: "Unauthorized",
                                        detail: "Sign in with your mobile number to continue.")

    func journeyID(_ context: RequestContext) throws -> ObjectID {
        guard let id = ObjectID(.verification, parsing: context.parameters["id"] ?? "") else { throw Self.signInRequired }
        return id
    }

    private func signedIn(_ id: ObjectID, _ token: BearerSecret) throws -> Response {
        var response = try Response.json(["status": "signed_in"])
        response.headers.add("Set-Cookie", sessionCookie(id.rawValue, value: token.value, maxAge: Int(SignInService.sessionLifetime)))
        return response
    }

    /// `HttpOnly` (no script reads it), `SameSite=Lax` set explicitly (WKWebView defaults differ;
    /// Strict would drop it on the way back from DigiLocker), `Secure` on https, scoped to this journey.
    func sessionCookie(_ id: String, value: String, maxAge: Int) -> String {
        cookie(Self.cookieName, value: value, path: "/j/\(id)", maxAge: maxAge)
    }

    /// A cookie of the journey's: no script reads it, sent on top-level returns from other sites
    /// (`SameSite=Lax`), `Secure` when the public URL is https.
    func cookie(_ name: String, value: String, path: String, maxAge: Int) -> String {
        var cookie = "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if publicURL.scheme == "https" { cookie += "; Secure" }
        return cookie
    }

    func cookie(_ request: Request) -> String? { request.cookie(Self.cookieName) }

    /// The client's address: the peer, or — only when the peer is a trusted proxy — the nearest
    /// untrusted address in `X-Forwarded-For`. Repeated header lines are one list (RFC 9110 §5.3),
    /// read from the right: a proxy appends, so only the right-most hops are the proxies' own.
    func clientAddress(_ request: Request) -> String {
        guard trustedProxies.contains(request.peerAddress) else { return request.peerAddress }
        let hops = Array(request.headers.all("X-Forwarded-For").joined(separator: ",").utf8)
            .split(separator: UInt8(ascii: ","))  // bytes, not Characters (see Request.cookie)
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !trustedProxies.contains($0) } ?? request.peerAddress
    }

    /// What the journey page is told about its verification: never the mobile number.
    struct JourneyState: Encodable {
        let verification_id: String
        let status: String
        let workflow: String
        let steps: [JourneyStep]
        let return_url: String?

        /// A step with the options the page needs to render it.
        struct JourneyStep: Encodable {
            let id: String
            let type: String
            let status: String
            let completed_at: String?
            let min: Int?
            let max: Int?
            let documents: [String]?
            let artifacts: [String]
        }

        init(_ v: Verification, returnURL: String?, workflow pinned: Workflow?) {
            verification_id = v.id.rawValue
            status = v.status.rawValue
            workflow = v.workflowKey
            steps = v.steps.map { state in
                let definition = pinned?.steps.first { $0.id == state.id }
                let bounds = definition.flatMap(JourneyService.imageBounds)
                return JourneyStep(id: state.id, type: state.type.rawValue, status: state.statusName,
                                   completed_at: APIObjects.timestamp(state.completedAt), min: bounds?.lowerBound,
                                   max: bounds?.upperBound, documents: definition?.documents, artifacts: state.artifacts)
            }
            return_url = returnURL
        }
    }
}
