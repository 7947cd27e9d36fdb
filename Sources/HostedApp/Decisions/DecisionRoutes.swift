import HostedCore
import HostedHTTP

/// `POST /v1/verifications/{id}/decision`: the customer approves or rejects a submitted
/// verification, by the same rules as the console (`DecisionService`).
struct DecisionRoutes {
    let guards: APIGuards
    let decisions: DecisionService
    let reads: VerificationReadService

    static let maximumReasonLength = DecisionService.maximumReasonLength

    func register(in routes: inout Router.Builder) {
        routes.add("POST", "/v1/verifications/{id}/decision", guards.idempotent { request, context, account in
            let id = try context.verificationID()
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
            let (decided, _) = try decisions.decide(tenancy: try context.tenancy(), id: id, approved: decision == "approved",
                                                    reason: reason, by: try context.apiActor())
            return reads.respond(decided)
        })
        routes.add("POST", "/v1/verifications/{id}/resubmission", guards.idempotent { request, context, account in
            let id = try context.verificationID()
            var body = try JSONObject(body: request.body)
            let parsed = DecisionService.resubmissionRequest(in: &body)
            try body.finish()
            guard let parsed else { throw DomainError.invalidRequest(detail: "The request has invalid fields.") }
            let updated = try decisions.requestResubmission(tenancy: try context.tenancy(), id: id, parsed, by: try context.apiActor())
            return reads.respond(updated)
        })
    }
}
