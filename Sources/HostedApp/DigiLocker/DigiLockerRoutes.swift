import Foundation
import HostedCore
import HostedHTTP
import HostedObservability

/// `POST /j/{id}/api/digilocker/start` (signed in) and the provider's way back,
/// `GET /journey/digilocker/callback`. The journey's session cookie is scoped to `/j/{id}`, so the
/// callback is bound to the browser by its own nonce cookie, scoped to the callback's path.
struct DigiLockerRoutes {
    let service: DigiLockerService
    /// For failures of the deferred callback (each line carries its request id).
    let log: any ServerLog
    /// The nonce cookie has the journey cookies' attributes.
    let cookies: JourneyCookies
    let publicURL: URL

    static let nonceCookie = "hosted_digilocker"

    /// The signed-in call (inside the journey's origin and session middleware).
    func registerStart(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/digilocker/start", bodyLimit: 4096) { request, context in
            let (_, verification) = try context.journey()
            var stepID: String?
            var language: String?
            if !request.body.isEmpty {
                var body = try JSONObject(body: request.body)
                stepID = body.string("step")
                language = body.string("lang")
                try body.finish()
            }
            if let language, !DigiLockerService.languages.contains(language) {
                throw DomainError.invalidRequest(detail: "The request has invalid fields.",
                                                 errors: [FieldError(field: "lang", message: "must be en or hi")])
            }
            let (url, nonce) = try service.start(verification, stepID: stepID, language: language, log: context.log)
            var response = try Response.json(["authorize_url": url])
            response.headers.add("Set-Cookie", nonceCookie(nonce, maxAge: Int(DigiLockerService.stateLifetime)))
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }

    /// The provider's way back (no journey session reaches it: its cookie is scoped to `/j/{id}`).
    func registerCallback(in routes: inout Router.Builder) {
        // The code exchange and document calls may take seconds: they run on a queue of their
        // own while the connection is suspended, so no HTTP worker waits on DigiLocker (and in
        // dev mode the simulator, served by these same workers, can answer).
        routes.addDeferrable("GET", DigiLockerEndpoints.callbackPath) { request, context in
            .later { complete in
                Self.roundTrips.async {
                    complete(ErrorBoundary.protect(log: log, requestID: context.requestID) { try callback(request, log: context.log) })
                }
            }
        }
    }

    private static let roundTrips = DispatchQueue(label: "hosted.digilocker.callbacks", attributes: .concurrent)

    private func callback(_ request: Request, log: RequestLog) throws -> Response {
        let outcome = try service.finish(state: request.queryValue("state"), nonce: request.cookie(Self.nonceCookie),
                                         code: request.queryValue("code"), error: request.queryValue("error"), log: log)
        var headers = HTTPHeaders([("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
                                   ("X-Content-Type-Options", "nosniff")])
        switch outcome {
        case .journey(let landing), .stale(let landing):
            // The nonce is spent only with its state: a stray or forged callback cannot wipe it.
            if case .journey = outcome { headers.add("Set-Cookie", nonceCookie("", maxAge: 0)) }
            let query = [landing.language.map { ("lang", $0) }, landing.setback.map { ("digilocker", $0.rawValue) }].compactMap { $0 }
            headers.add("Location", publicURL.absoluteString + "/j/" + landing.verificationID.rawValue
                        + (query.isEmpty ? "" : "?" + FormURLEncoded.encode(query)))
            return Response(status: 303, headers: headers)
        case .rejected:
            headers.add("Content-Type", "text/html; charset=utf-8")
            headers.add("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
            return Response(status: 400, headers: headers, body: Array(Self.rejectedPage.utf8))
        }
    }

    /// For a state that was never issued: there is no journey to go back to.
    static let rejectedPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Link not valid</title><link rel="stylesheet" href="/assets/styles.css"></head>
        <body data-state="digilocker-rejected"><main><h1>This link is not valid</h1>
        <p>This DigiLocker link was not made for this browser or has been changed. Go back to the app
        that sent you and open your verification again.</p></main></body></html>
        """

    private func nonceCookie(_ value: String, maxAge: Int) -> String {
        cookies.cookie(Self.nonceCookie, value: value, path: DigiLockerEndpoints.callbackPath, maxAge: maxAge)
    }
}
