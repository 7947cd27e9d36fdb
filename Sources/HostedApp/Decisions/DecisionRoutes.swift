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
            let (decided, _) = try decisions.decide(accountID: account.id, id: id, approved: decision == "approved",
                                                    reason: reason, by: try context.apiActor())
            return reads.respond(decided)
        })
        routes.add("POST", "/v1/verifications/{id}/resubmission", guards.idempotent { request, context, account in
            let id = try context.verificationID()
            var body = try JSONObject(body: request.body)
            let steps = body.stringArray("steps")
            let reason = body.string("reason", required: true)
            let message = body.string("message")
            let notify = body.bool("notify") ?? false
            if steps?.isEmpty == true { body.addError("steps", "must name at least one step") }
            if let reason, ResubmissionReason(rawValue: reason) == nil {
                body.addError("reason", "must be one of \(ResubmissionReason.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let message, message.count > DecisionService.maximumMessageLength {
                body.addError("message", "must be at most \(DecisionService.maximumMessageLength) characters")
            }
            if steps == nil { body.addError("steps", "is required") }
            try body.finish()
            guard let steps, let reason = reason.flatMap(ResubmissionReason.init(rawValue:)) else {
                throw DomainError.invalidRequest(detail: "The request has invalid fields.")
            }
            let updated = try decisions.requestResubmission(accountID: account.id, id: id,
                                                            .init(steps: steps, reason: reason, message: message, notify: notify),
                                                            by: try context.apiActor())
            return reads.respond(updated)
        })
    }
}
