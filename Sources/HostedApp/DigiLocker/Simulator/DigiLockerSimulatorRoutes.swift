import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage

/// A stand-in for DigiLocker under `/sim/digilocker/…` — a consent page (Allow / Deny), a token
/// endpoint that checks the client, the code's single use and the PKCE verifier, and document
/// endpoints serving a fixed test person. Test verifications always come here, and so does dev
/// mode by default, so the whole redirect round trip runs on one machine. Outside dev mode it
/// grants consent only for a round trip of a test verification (`admits`).
struct DigiLockerSimulatorRoutes {
    let simulator: DigiLockerSimulator
    /// The client the simulator accepts and the redirect URI registered for it.
    let endpoints: DigiLockerEndpoints
    /// Whether consent may be granted for a round trip's `state`.
    let admits: @Sendable (_ state: String) throws -> Bool

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/sim/digilocker/authorize") { request, _ in
            switch authorization(request.query) {
            case .success(let grant): return html(200, Self.consentPage(grant))
            case .failure(let reason): return html(400, Self.errorPage(reason))
            }
        }
        routes.add("POST", "/sim/digilocker/authorize", bodyLimit: 16 * 1024) { request, _ in
            guard let form = FormURLEncoded.decode(request.body) else { return html(400, Self.errorPage("The form could not be read.")) }
            let grant: Grant
            switch authorization(form) {
            case .success(let valid): grant = valid
            case .failure(let reason): return html(400, Self.errorPage(reason))
            }
            var reply: [(String, String)]
            if form.first(where: { $0.name == "decision" })?.value == "allow" {
                let code = try simulator.issueCode(clientID: grant.clientID, redirectURI: grant.redirectURI, codeChallenge: grant.challenge)
                reply = [("code", code.value)]
            } else {
                reply = [("error", "access_denied"), ("error_description", "The user denied access.")]
            }
            reply.append(("state", grant.state))
            let location = grant.redirectURI + (grant.redirectURI.contains("?") ? "&" : "?") + FormURLEncoded.encode(reply)
            return Response(status: 303, headers: HTTPHeaders([("Location", location), ("Cache-Control", "no-store")]))
        }
        routes.add("POST", "/sim/digilocker/token", bodyLimit: 16 * 1024) { request, _ in
            try token(FormURLEncoded.decode(request.body) ?? [])
        }
        routes.add("GET", "/sim/digilocker/api/3/xml/eaadhaar") { request, _ in
            try authorized(request) { xml(DigiLockerSample.eAadhaar) }
        }
        routes.add("GET", "/sim/digilocker/api/2/files/issued") { request, _ in
            try authorized(request) { try .json(DigiLockerSample.issuedFiles) }
        }
        // The document URI ends in the document's number (PAN, driving licence): not logged.
        routes.add("GET", "/sim/digilocker/api/1/xml/{uri}", maskedInLog: ["uri"]) { request, context in
            try authorized(request) {
                guard let document = DigiLockerSample.certificates[context.parameters["uri"] ?? ""] else {
                    return try oauthError(404, "not_found", "No such document.")
                }
                return xml(document)
            }
        }
    }

    /// A valid authorization request.
    struct Grant {
        let clientID: String
        let redirectURI: String
        let state: String
        let challenge: String
    }

    private func authorization(_ fields: [(name: String, value: String)]) -> Result<Grant, AuthorizationRefusal> {
        func field(_ name: String) -> String { fields.first { $0.name == name }?.value ?? "" }
        guard field("response_type") == "code" else { return .failure("response_type must be code.") }
        guard field("client_id") == endpoints.clientID else { return .failure("Unknown client_id.") }
        guard field("redirect_uri") == endpoints.redirectURI else { return .failure("redirect_uri is not the one registered for this client.") }
        let state = field("state")
        guard !state.isEmpty, state.utf8.count <= 512 else { return .failure("state is required (at most 512 characters).") }
        guard (try? admits(state)) == true else { return .failure("This simulator serves only test verifications.") }
        guard field("code_challenge_method") == "S256" else { return .failure("code_challenge_method must be S256.") }
        let challenge = field("code_challenge")
        guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else { return .failure("code_challenge must be a base64url SHA-256.") }
        return .success(Grant(clientID: endpoints.clientID, redirectURI: endpoints.redirectURI, state: state, challenge: challenge))
    }

    /// RFC 6749 §4.1.3 with RFC 7636 §4.6: the code is burnt by its first use, right verifier or not.
    private func token(_ form: [(name: String, value: String)]) throws -> Response {
        func field(_ name: String) -> String { form.first { $0.name == name }?.value ?? "" }
        guard field("grant_type") == "authorization_code" else {
            return try oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code.")
        }
        guard field("client_id") == endpoints.clientID,
              Digest.constantTimeEquals(Array(field("client_secret").utf8), Array(endpoints.clientSecret.utf8))
        else { return try oauthError(401, "invalid_client", "Client authentication failed.") }
        let code = field("code")
        guard !code.isEmpty, code.utf8.count <= 512,
              let grant = try simulator.redeem(code: code)
        else { return try oauthError(400, "invalid_grant", "The code is unknown, expired or already used.") }
        guard grant.redirectURI == field("redirect_uri"), grant.clientID == field("client_id") else {
            return try oauthError(400, "invalid_grant", "redirect_uri does not match the authorization request.")
        }
        guard PKCE.verify(verifier: field("code_verifier"), challenge: grant.codeChallenge) else {
            return try oauthError(400, "invalid_grant", "code_verifier does not match the code_challenge.")
        }
        let token = try simulator.issueToken()
        var response = try Response.json(TokenReply(access_token: token.value, expires_in: Int(DigiLockerSimulator.tokenLifetime)))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    private struct TokenReply: Encodable {
        let access_token: String
        let token_type = "Bearer"
        let expires_in: Int
        let scope = "openid"
        let digilockerid = DigiLockerSample.digilockerID
        let name = DigiLockerSample.name
        let dob = "15081990"
        let gender = "F"
        let eaadhaar = "Y"
    }

    private func authorized(_ request: Request, _ body: () throws -> Response) throws -> Response {
        let header = request.headers["Authorization"] ?? ""
        guard header.hasPrefix("Bearer "), let token = BearerSecret(presented: String(header.dropFirst(7))),
              try simulator.isLive(token: token)
        else { return try oauthError(401, "invalid_token", "The access token is missing, unknown or expired.") }
        return try body()
    }

    /// RFC 6749 §5.2's error body.
    private func oauthError(_ status: Int, _ error: String, _ description: String) throws -> Response {
        var response = try Response.json(["error": error, "error_description": description], status: status)
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    private func xml(_ text: String) -> Response {
        Response(status: 200, headers: HTTPHeaders([("Content-Type", "application/xml; charset=utf-8")]), body: Array(text.utf8))
    }

    private func html(_ status: Int, _ page: String) -> Response {
        Response(status: status, headers: HTTPHeaders([
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"),
            ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"),
        ]), body: Array(page.utf8))
    }

    /// Why an authorization request was refused.
    struct AuthorizationRefusal: Error, ExpressibleByStringLiteral {
        let reason: String
        init(stringLiteral value: String) { reason = value }
    }

    static func consentPage(_ grant: Grant) -> String {
        let hidden = [("response_type", "code"), ("client_id", grant.clientID), ("redirect_uri", grant.redirectURI),
                      ("state", grant.state), ("code_challenge", grant.challenge), ("code_challenge_method", "S256")]
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTMLText.escape($0.1))\">" }.joined(separator: "\n")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>DigiLocker (simulator) — consent</title><link rel="stylesheet" href="/assets/sim/digilocker.css"></head>
            <body data-state="consent"><main>
            <p class="badge">Simulator — dev mode only</p>
            <h1>DigiLocker</h1>
            <p>Signed in as <strong>\(HTMLText.escape(DigiLockerSample.name))</strong>, Aadhaar XXXX XXXX \(DigiLockerSample.uid.suffix(4)).</p>
            <p><strong>\(HTMLText.escape(grant.clientID))</strong> asks to see your Aadhaar (e-KYC) and your issued documents
            (PAN card, driving licence).</p>
            <form method="post" action="/sim/digilocker/authorize">
            \(hidden)
            <button type="submit" name="decision" value="allow" data-testid="consent-allow">Allow</button>
            <button type="submit" name="decision" value="deny" data-testid="consent-deny" class="secondary">Deny</button>
            </form></main></body></html>
            """
    }

    static func errorPage(_ reason: AuthorizationRefusal) -> String { errorPage(reason.reason) }

    static func errorPage(_ reason: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>DigiLocker (simulator) — error</title></head>
        <body data-state="error"><main><h1>Invalid request</h1><p>\(HTMLText.escape(reason))</p></main></body></html>
        """
    }
}
