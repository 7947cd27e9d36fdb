import HostedHTTP
import HostedImaging

/// The branding feature's factory and routes (issue 44).
extension Foundations {
    /// Logos are re-encoded by libvips on the decode queue (the API) or at once (the command line).
    func makeBranding() throws -> BrandingService {
        BrandingService(database: database, normalizer: try VipsLogoNormalizer(), publicURL: configuration.publicURL, clock: clock)
    }

    /// The API's branding changes (with the key), the logo and the journey's brand (without),
    /// the console's (with an operator's session, from the console's origin).
    func registerBranding(_ branding: BrandingService, decodes: DecodeQueue, console: ConsoleService, accounts: AccountRoutes,
                          in routes: inout Router.Builder) {
        let brandingRoutes = BrandingRoutes(branding: branding, decodes: decodes, accountBody: { try accounts.body($0) })
        routes.group(apiKeys) { routes in brandingRoutes.registerAPI(in: &routes) }
        brandingRoutes.registerPublic(in: &routes)
        routes.group(SameOrigin(publicURL: configuration.publicURL)) { routes in
            routes.group(ConsoleSessionAuthentication(console: console)) { routes in brandingRoutes.registerConsole(in: &routes) }
        }
    }
}
