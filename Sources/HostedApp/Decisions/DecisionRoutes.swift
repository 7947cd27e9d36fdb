import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// `POST /v1/verifications/{id}/decision` and `GET /v1/verifications/{id}/artifacts/{art_id}`:
/// what the customer does with a submitted verification.
struct DecisionRoutes {
    let guards: APIGuards
    let decisions: DecisionService
    let verifications: VerificationStore
    let artifacts: ArtifactStore
    let respond: @Sendable (Verification, Int) throws -> Response

    static let maximumReasonLength = DecisionService.maximumReasonLength

    func register(in routes: inout Router.Builder) {
        routes.add("POST", "/v1/verifications/{id}/decision", guards.idempotent { request, context, account in
            let id = try VerificationRoutes.id(context)
            var body = try JSONObject(body: request.body)
            let decision = body.string("decision", required: true)
            let reason = body.string("reason")
            if let decision, decision != "approved" && decision != "rejected" {
                body.addError("decision", "must be approved or rejected")
            }
            if let reason, reason.count > Self.maximumReasonLength {
                body.addError("reason", "must be at most \(Self.maximumReasonLength) characters")
            }
            try body.finish()
            let (decided, _) = try decisions.decide(accountID: account.id, id: id, approved: decision == "approved",
                                                    reason: reason, by: try context.apiActor())
            return try respond(decided, 200)
        })
        routes.add("GET", "/v1/verifications/{id}/artifacts/{artifact}", guards.authenticated { _, context, account in
            let id = try VerificationRoutes.id(context)
            guard try verifications.verification(accountID: account.id, id: id) != nil,
                  let artifactID = ObjectID(.artifact, parsing: context.parameters["artifact"] ?? ""),
                  let (contentType, content) = try artifacts.content(id: artifactID, verificationID: id)
            else { throw DomainError.notFound(what: "artifact") }
            let fileExtension = ["image/jpeg": "jpg", "image/png": "png", "application/json": "json"][contentType] ?? "bin"
            return Response(status: 200, headers: HTTPHeaders([
                ("Content-Type", contentType),
                ("Content-Disposition", "attachment; filename=\"\(artifactID.rawValue).\(fileExtension)\""),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "private, no-store"),
            ]), body: content)
        })
    }
}
