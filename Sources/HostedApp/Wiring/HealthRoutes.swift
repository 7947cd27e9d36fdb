import HostedHTTP
import HostedStorage

/// `/healthz` (the process answers) and `/readyz` (the store answers and its schema is current).
struct HealthRoutes {
    let database: any Database
    let migrator: Migrator

    private struct Status: Encodable {
        let status: String
    }

    private static let alive = Response.json(bytes: Array(#"{"status":"ok"}"#.utf8))

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/healthz") { _, _ in Self.alive }
        routes.add("GET", "/readyz") { _, _ in try ready() }
    }

    private func ready() throws -> Response {
        let pending: [String]
        do {
            pending = try migrator.pending(database)
        } catch {
            throw Problem(status: 503, code: .notReady, title: "Service Unavailable",
                          detail: "The database is unreachable.", headers: [("Retry-After", "1")])
        }
        guard pending.isEmpty else {
            throw Problem(status: 503, code: .notReady, title: "Service Unavailable",
                          detail: "\(pending.count) migration(s) are pending; run `hosted migrate`.")
        }
        return try .json(Status(status: "ready"))
    }
}
