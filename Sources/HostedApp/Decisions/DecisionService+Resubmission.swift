import Foundation
import HostedCore
import HostedStorage

/// Sending a submitted verification back for some steps again, instead of a rejection that
/// would make the user start over (the API's `resubmission` and the console's "Ask for a retake").
extension DecisionService {
    /// What a reviewer asks for.
    struct ResubmissionRequest {
        var steps: [String]
        var reason: ResubmissionReason
        /// Shown to the user verbatim; kept with the verification, never in an event.
        var message: String?
        /// Text the journey link to the verification's number.
        var notify: Bool
    }

    static let maximumMessageLength = 500

    /// The request in a body (the API's and the console's), each field checked; nil when one is
    /// wrong, its error added to `body` (the status machine then checks the steps against the
    /// verification).
    static func resubmissionRequest(in body: inout JSONObject) -> ResubmissionRequest? {
        let steps = body.stringArray("steps")
        let reason = body.string("reason", required: true)
        let message = body.string("message")
        let notify = body.bool("notify") ?? false
        if steps == nil { body.addError("steps", "is required") }
        if steps?.isEmpty == true { body.addError("steps", "must name at least one step") }
        if let reason, ResubmissionReason(rawValue: reason) == nil {
            body.addError("reason", "must be one of \(ResubmissionReason.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let message, message.count > maximumMessageLength {
            body.addError("message", "must be at most \(maximumMessageLength) characters")
        }
        guard let steps, !steps.isEmpty, let reason = reason.flatMap(ResubmissionReason.init(rawValue:)),
              (message?.count ?? 0) <= maximumMessageLength else { return nil }
        return ResubmissionRequest(steps: steps, reason: reason, message: message, notify: notify)
    }

    /// Reopens the named steps of a submitted verification (through the status machine, which
    /// checks the state and the workflow's cap), gives it the workflow's time again, and with
    /// `notify` queues the journey link by SMS in the same transaction.
    func requestResubmission(tenancy: Tenancy, id: ObjectID, _ request: ResubmissionRequest,
                             by actor: EventActor) throws -> Verification {
        guard let current = try verifications.verification(tenancy: tenancy, id: id) else {
            throw DomainError.notFound(what: "verification")
        }
        guard let workflow = try workflows.workflow(accountID: tenancy.accountID, key: current.workflowKey, version: current.workflowVersion)
        else { throw DomainError.notFound(what: "workflow") }
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(TimeInterval(workflow.lifecycle.expiresAfterSeconds))
        var queued = false
        let updated = try verifications.update(tenancy: tenancy, id: id, at: now) { verification, connection in
            try verification.apply(.resubmissionRequested(steps: request.steps, reason: request.reason, message: request.message,
                                                          expiresAt: expiresAt, limit: workflow.review.maxResubmissions),
                                   at: now, by: actor)
            guard request.notify, !verification.mobile.isEmpty else { return }
            let messageID = ObjectID(.message, using: random)
            // From the configured public URL: the link asks the user to sign in with their number.
            let text = "Please redo part of your verification: \(publicURL.absoluteString)/j/\(id.rawValue)"
            try SMSQueueStore.enqueue(id: messageID, verificationID: id,
                                      sealed: try SMSDelivery.seal(.init(to: verification.mobile, body: text), id: messageID,
                                                                   box: smsBox, random: random),
                                      at: now, on: connection)
            queued = true
        }
        if queued { messageQueued() }
        return updated
    }
}
