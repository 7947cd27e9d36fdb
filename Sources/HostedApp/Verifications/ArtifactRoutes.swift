import Foundation
import HostedCore
import HostedHTTP

/// `GET /v1/verifications/{id}/artifacts/{artifact}`: a captured photo or document, as a download.
struct ArtifactRoutes {
    let guards: APIGuards
    let service: VerificationService

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/verifications/{id}/artifacts/{artifact}", guards.authenticated { _, context, _ in
            let artifactID = ObjectID(.artifact, parsing: context.parameters["artifact"] ?? "")
            let (contentType, content) = try service.artifact(tenancy: try context.tenancy(), verificationID: try context.verificationID(),
                                                              artifactID: artifactID)
            let fileExtension = ["image/jpeg": "jpg", "image/png": "png", "application/json": "json"][contentType] ?? "bin"
            return Response(status: 200, headers: HTTPHeaders([
                ("Content-Type", contentType),
                ("Content-Disposition", "attachment; filename=\"\(artifactID?.rawValue ?? "").\(fileExtension)\""),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "private, no-store"),
            ]), body: content)
        })
    }
}
