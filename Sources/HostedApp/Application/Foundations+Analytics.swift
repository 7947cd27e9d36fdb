import HostedHTTP
import HostedStorage

/// Journey analytics' factory and routes (issue 43).
extension Foundations {
    /// One recording queue per process; `HOSTED_ANALYTICS=off` builds it recording nothing.
    func makeAnalytics() -> AnalyticsService {
        AnalyticsService(store: AnalyticsStore(database: database), clock: clock, log: log, metrics: metrics,
                         enabled: configuration.analyticsEnabled)
    }

    /// The API's funnel (with the key), the console's page and funnel (with an operator's
    /// session). The journey's signal call is registered with the journey's API.
    func registerAnalytics(_ analytics: AnalyticsService, console: ConsoleService, in routes: inout Router.Builder) {
        let analyticsRoutes = AnalyticsRoutes(service: analytics)
        routes.group(apiKeys) { routes in analyticsRoutes.registerAPI(guards: guards, in: &routes) }
        let (files, page) = (files, configuration.publicDirectory.appendingPathComponent("console.html"))
        analyticsRoutes.registerConsolePage(page: { request, _ in
            try files.response(for: page, request: request, extraHeaders: ConsoleRoutes.pageHeaders)
        }, in: &routes)
        routes.group(SameOrigin(publicURL: configuration.publicURL)) { routes in
            routes.group(ConsoleSessionAuthentication(console: console)) { routes in analyticsRoutes.registerConsole(in: &routes) }
        }
    }
}
