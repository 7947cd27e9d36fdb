import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// The journey API of continuing on another device. The first device's calls need its session
/// (`registerSignedIn`, inside `JourneySessionAuthentication`); the second device's open and
/// pick come before it has one (`registerOpen`, same-origin only).
struct ContinuationRoutes {
    let service: ContinuationService
    let longPoll: LongPoll
    let cookies: JourneyCookies

    static let claimCookie = JourneyCookies.claimCookie
    static let maximumWait = 30

    func registerSignedIn(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/continuations") { request, context in
            let (_, verification) = try context.journey()
            var response = try Response.json(service.create(for: verification, userAgent: request.headers["User-Agent"]), status: 201)
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        // "Continue in the app": the customer's backend hears it by webhook and pushes to its app.
        routes.add("POST", "/j/{id}/api/continuations/app", bodyLimit: 64) { _, context in
            let (_, verification) = try context.journey()
            try service.requestApp(for: verification)
            return try .json(["status": "requested"], status: 202)
        }
        routes.add("POST", "/j/{id}/api/continuations/sms", bodyLimit: 4096) { request, context in
            let (_, verification) = try context.journey()
            var body = try JSONObject(body: request.body)
            let secret = body.string("secret", required: true)
            try body.finish()
            try service.text(secret ?? "", for: verification)
            return try .json(["status": "sent"], status: 202)
        }
        routes.add("DELETE", "/j/{id}/api/continuations/current") { _, context in
            let (_, verification) = try context.journey()
            try service.revoke(for: verification)
            return Response(status: 204)
        }
        // The first device follows: answers at once when `since` is not the current tag, else
        // when something changes (the change feed carries every verification's id), else after
        // `wait`, or when the current link expires if that comes first (an expiry writes nothing,
        // so nothing on the feed would wake the waiter).
        routes.addDeferrable("GET", "/j/{id}/api/continuations/current") { request, context in
            let (session, verification) = try context.journey()
            var wait = 0
            if let raw = request.queryValue("wait") {
                guard let seconds = Int(raw), (0...Self.maximumWait).contains(seconds) else {
                    throw DomainError.invalidRequest(detail: "wait must be 0 to \(Self.maximumWait) seconds.",
                                                     errors: [FieldError(field: "wait", message: "must be 0 to \(Self.maximumWait)")])
                }
                wait = seconds
            }
            let id = verification.id
            guard let now = try service.progress(verificationID: id, session: session) else { throw SignInService.signInRequired }
            let since = request.queryValue("since")
            guard wait > 0, since == now.tag else { return .ready(.json(bytes: try service.answer(now, session: session))) }
            let owners = ["journey:\(id.rawValue)", "address:\(request.peerAddress)"]
            guard longPoll.reserve(owners: owners) else {
                throw DomainError.rateLimited(detail: "Too many waiting requests for this journey.", retryAfterSeconds: 1)
            }
            let service = self.service
            let check: @Sendable () -> Response? = {
                do {
                    guard let latest = try service.progress(verificationID: id, session: session) else { return SignInService.signInRequired.response }
                    return latest.tag == since ? nil : Response.json(bytes: try service.answer(latest, session: session))
                } catch {
                    return Problem.internalError.response
                }
            }
            // Read again at the end of the wait: what changed with nothing written (the pause
            // after a report counting down) is then as it is now, not as it was when the wait began.
            let timeout: @Sendable () -> Response = {
                do {
                    guard let latest = try service.progress(verificationID: id, session: session) else { return SignInService.signInRequired.response }
                    return Response.json(bytes: try service.answer(latest, session: session))
                } catch {
                    return Problem.internalError.response
                }
            }
            let seconds = min(wait, now.secondsUntilExpiry ?? wait)
            return .later { complete in
                longPoll.wait(key: id.rawValue, owners: owners, seconds: seconds, check: check, timeout: timeout, complete: complete)
            }
        }
    }

    func registerOpen(in routes: inout Router.Builder) {
        registerReport(in: &routes)
        routes.add("POST", "/j/{id}/api/continuations/open", bodyLimit: 4096) { request, context in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let secret = body.string("secret", required: true)
            try body.finish()
            let (prompt, claim) = try service.open(verificationID: id, secret: secret ?? "")
            var response = try Response.json(ContinuationPromptBody(prompt))
            response.headers.add("Set-Cookie", cookies.claim(id.rawValue, value: claim.value))
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        routes.add("POST", "/j/{id}/api/continuations/match", bodyLimit: 4096) { request, context in
            let id = try Self.id(context)
            var body = try JSONObject(body: request.body)
            let number = body.string("number", required: true)
            try body.finish()
            let clear = cookies.cookie(Self.claimCookie, value: "", path: "/j/\(id.rawValue)", maxAge: 0)
            do {
                let token = try service.pick(verificationID: id, claim: request.cookie(Self.claimCookie), number: number)
                var response = try Response.json(["status": "signed_in"])
                response.headers.add("Set-Cookie", clear)
                response.headers.add("Set-Cookie", cookies.session(id.rawValue, value: token.value, maxAge: Int(SignInService.sessionLifetime)))
                return response
            } catch let error as DomainError {
                var refused = error.response
                refused.headers.add("Set-Cookie", clear)
                return refused
            }
        }
    }

    /// "This wasn't me": the phone's claim burns the link and flags the verification.
    func registerReport(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/continuations/report", bodyLimit: 64) { request, context in
            let id = try Self.id(context)
            let clear = cookies.cookie(Self.claimCookie, value: "", path: "/j/\(id.rawValue)", maxAge: 0)
            do {
                try service.report(verificationID: id, claim: request.cookie(Self.claimCookie))
                var response = try Response.json(["status": "reported"])
                response.headers.add("Set-Cookie", clear)
                return response
            } catch let error as DomainError {
                var refused = error.response
                refused.headers.add("Set-Cookie", clear)
                return refused
            }
        }
    }

    static func id(_ context: RequestContext) throws -> ObjectID {
        guard let id = ObjectID(.verification, parsing: context.parameters["id"] ?? "") else { throw ContinuationService.invalid }
        return id
    }
}
