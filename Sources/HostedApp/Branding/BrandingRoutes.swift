import HostedCore
import HostedHTTP
import HostedImaging

/// The account's branding through the customer API (`PATCH /v1/account`, `PUT` and `DELETE
/// /v1/account/logo`), the logo served from the journey's origin by its content hash, and what
/// the journey page (`/j/{id}/api/brand`, before sign-in) and the console header show.
struct BrandingRoutes {
    let branding: BrandingService
    /// Logos are decoded where photos are, never on an HTTP worker: the threads and the waiting
    /// line bound what decoding holds, however many arrive at once.
    let decodes: DecodeQueue
    /// The account's JSON as `GET /v1/account` answers (`AccountRoutes`), after a change.
    let accountBody: @Sendable (Account) throws -> Response

    /// A year, and never revalidated: a new logo has a new URL.
    static let logoHeaders: [(String, String)] = [
        ("Content-Type", "image/png"),
        ("Cache-Control", "public, max-age=31536000, immutable"),
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ] + PageHeaders.journey.filter { !["Cache-Control", "Content-Security-Policy"].contains($0.0) }

    /// Inside `APIKeyAuthentication`.
    func registerAPI(in routes: inout Router.Builder) {
        routes.add("PATCH", "/v1/account", bodyLimit: 16 * 1024) { request, context in
            let account = try context.account()
            _ = try branding.update(accountID: account.id, try BrandingPatch.change(body: request.body))
            return try accountBody(account)
        }
        // The limit is the route's: a larger body is refused (413) before it is read.
        routes.addDeferrable("PUT", "/v1/account/logo", bodyLimit: BrandLogo.maximumBytes) { request, context in
            let account = try context.account()
            try branding.checkLogo(accountID: account.id, bytes: request.body)
            let (branding, accountBody, log) = (self.branding, self.accountBody, context.log)
            return Reply.eventually { settle in
                let queued = decodes.submit(request.body, normalizer: branding.normalizer) { decoded in
                    settle(.onWorker {
                        do {
                            _ = try branding.storeLogo(accountID: account.id, decoded)
                            return .ready(try accountBody(account))
                        } catch {
                            return .ready(ErrorBoundary.problem(for: error, log: log).response)
                        }
                    })
                }
                if !queued { settle(.ready(DomainError.decodesBusy.response)) }
            }
        }
        routes.add("DELETE", "/v1/account/logo") { _, context in
            let account = try context.account()
            _ = try branding.deleteLogo(accountID: account.id)
            return try accountBody(account)
        }
    }

    /// Without credentials: the brand is what a link's recipient sees before signing in.
    func registerPublic(in routes: inout Router.Builder) {
        routes.add("GET", "/brand/{account}/{file}") { _, context in
            let png = try branding.logo(account: context.parameters["account"] ?? "", file: context.parameters["file"] ?? "")
            return Response(status: 200, headers: HTTPHeaders(Self.logoHeaders), body: png)
        }
        routes.add("GET", "/j/{id}/api/brand") { _, context in
            var response = try Response.json(try branding.journeyBrand(verificationID: try context.verificationID()))
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }

    /// Inside `ConsoleSessionAuthentication`: the operator's own account.
    func registerConsole(in routes: inout Router.Builder) {
        routes.add("GET", "/console/api/brand") { _, context in
            var response = try Response.json(try branding.consoleBrand(accountID: try context.signedInOperator().accountID))
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }
}
