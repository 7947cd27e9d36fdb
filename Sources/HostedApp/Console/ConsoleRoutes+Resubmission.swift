import HostedCore
import HostedHTTP

/// "Ask for a retake" from the console's decision panel: the same rules as
/// `POST /v1/verifications/{id}/resubmission` (`DecisionService.requestResubmission`), with the
/// signed-in operator as the actor, for a role that may decide.
extension ConsoleRoutes {
    func registerResubmission(in routes: inout Router.Builder) {
        routes.add("POST", "/console/api/verifications/{id}/resubmission", bodyLimit: 8192) { request, context in
            let op = try context.signedInOperator()
            try OperatorRole.requireDecides(op)
            var body = try JSONObject(body: request.body)
            let tenancy = ConsoleMode.tenancy(op, request)
            let asked = DecisionService.resubmissionRequest(in: &body)
            try body.finish()
            guard let asked else { throw DomainError.invalidRequest(detail: "The request has invalid fields.") }
            let updated = try decisions.requestResubmission(tenancy: tenancy, id: try Self.id(context), asked, by: op.actor)
            return try .json(Resubmitted(verification: review.detail(of: updated, for: op).verification))
        }
    }

    struct Resubmitted: Encodable {
        let outcome = "resubmission_requested"
        let verification: ConsoleReview.VerificationView
    }
}
