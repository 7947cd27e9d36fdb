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
            let request = Self.resubmissionRequest(&body)
            try body.finish()
            guard let request else { throw DomainError.invalidRequest(detail: "The request has invalid fields.") }
            let updated = try decisions.requestResubmission(accountID: op.accountID, id: try Self.id(context), request, by: op.actor)
            return try .json(Resubmitted(verification: review.detail(of: updated, for: op).verification))
        }
    }

    /// The body's request, validated as the API validates it (the status machine then checks the
    /// steps against the verification); nil when a field is wrong, its error added to `body`.
    static func resubmissionRequest(_ body: inout JSONObject) -> DecisionService.ResubmissionRequest? {
        let steps = body.stringArray("steps")
        let reason = body.string("reason", required: true)
        let message = body.string("message")
        let notify = body.bool("notify") ?? false
        if steps == nil { body.addError("steps", "is required") }
        if steps?.isEmpty == true { body.addError("steps", "must name at least one step") }
        if let reason, ResubmissionReason(rawValue: reason) == nil {
            body.addError("reason", "must be one of \(ResubmissionReason.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let message, message.count > DecisionService.maximumMessageLength {
            body.addError("message", "must be at most \(DecisionService.maximumMessageLength) characters")
        }
        guard let steps, !steps.isEmpty, let reason = reason.flatMap(ResubmissionReason.init(rawValue:)),
              (message?.count ?? 0) <= DecisionService.maximumMessageLength else { return nil }
        return .init(steps: steps, reason: reason, message: message, notify: notify)
    }

    struct Resubmitted: Encodable {
        let outcome = "resubmission_requested"
        let verification: ConsoleReview.VerificationView
    }
}
