import HostedCore
import Foundation
import HostedHTTP
import HostedStorage

/// `/healthz` (the process answers) and `/readyz` (the store answers and its schema is current).
struct HealthRoutes {
    let database: any Database
    let migrator: Migrator
    /// Set when the process is going to stop: readiness fails first, so a balancer stops sending.
    let draining: DrainFlag
    /// The object store artifacts go to, if one is configured: `/readyz` fails while it is unusable.
    var artifactStore: ObjectArtifactBackend? = nil

    private struct Status: Encodable {
        let status: String
    }

    private static let alive = Response.json(bytes: Array(#"{"status":"ok"}"#.utf8))

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/healthz") { _, _ in Self.alive }
        routes.add("GET", "/readyz") { _, _ in try ready() }
    }

    private func ready() throws -> Response {
        guard !draining.isSet else {
            throw DomainError.unavailable(detail: "This process is shutting down.", code: .notReady, retryAfterSeconds: 1)
        }
        let pending: [String]
        do {
            pending = try migrator.pending(database)
        } catch {
            throw DomainError.unavailable(detail: "The database is unreachable.", code: .notReady, retryAfterSeconds: 1)
        }
        guard pending.isEmpty else {
            throw DomainError.unavailable(detail: "\(pending.count) migration(s) are pending; run `hosted migrate`.", code: .notReady,
                                          retryAfterSeconds: nil)
        }
        if let problem = artifactStore?.problem() {
            throw DomainError.unavailable(detail: "The artifact store is unusable: \(problem).", code: .notReady, retryAfterSeconds: 5)
        }
        return try .json(Status(status: "ready"))
    }
}
