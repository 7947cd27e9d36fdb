import Foundation
import HostedCore
import HostedHTTP

/// `GET /v1/verifications/{id}/evidence` (an API key of the verification's account) and
/// `GET /console/api/verifications/{id}/evidence` (an operator of it): the evidence bundle as a
/// download, recorded with its actor.
struct EvidenceRoutes {
    let service: EvidenceService

    /// Inside `APIKeyAuthentication`.
    func registerAPI(guards: APIGuards, in routes: inout Router.Builder) {
        routes.add("GET", "/v1/verifications/{id}/evidence", guards.authenticated { request, context, _ in
            try Self.refuseQuery(request)
            return Self.download(try service.export(tenancy: try context.tenancy(), verificationID: try context.verificationID(),
                                                    by: try context.apiActor()))
        })
    }

    /// Inside `ConsoleSessionAuthentication`: the operator's account, in the mode the console
    /// shows (its test-data switch).
    func registerConsole(in routes: inout Router.Builder) {
        routes.add("GET", "/console/api/verifications/{id}/evidence") { request, context in
            let op = try context.signedInOperator()
            try Self.refuseQuery(request)
            return Self.download(try service.export(tenancy: ConsoleMode.tenancy(op, request), verificationID: try context.verificationID(),
                                                    by: op.actor))
        }
    }

    static func download(_ bundle: EvidenceService.Bundle) -> Response {
        Response(status: 200, headers: HTTPHeaders([
            ("Content-Type", "application/zip"),
            ("Content-Disposition", "attachment; filename=\"\(bundle.filename)\""),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"),
        ]), body: bundle.bytes)
    }

    private static func refuseQuery(_ request: Request) throws {
        let unknown = request.query.map { FieldError(field: $0.name, message: "is not a known parameter") }
        guard unknown.isEmpty else { throw DomainError.invalidRequest(detail: "The query is not valid.", errors: unknown) }
    }
}
