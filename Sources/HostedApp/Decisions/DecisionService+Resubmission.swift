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

    /// Reopens the named steps of a submitted verification (through the status machine, which
    /// checks the state and the workflow's cap), gives it the workflow's time again, and with
    /// `notify` queues the journey link by SMS in the same transaction.
    func requestResubmission(accountID: ObjectID, id: ObjectID, _ request: ResubmissionRequest,
                             by actor: EventActor) throws -> Verification {
        guard let current = try verifications.verification(accountID: accountID, id: id) else {
            throw DomainError.notFound(what: "verification")
        }
        guard let workflow = try workflows.workflow(accountID: accountID, key: current.workflowKey, version: current.workflowVersion)
        else { throw DomainError.notFound(what: "workflow") }
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(TimeInterval(workflow.lifecycle.expiresAfterSeconds))
        var queued = false
        let updated = try verifications.update(accountID: accountID, id: id, at: now) { verification, connection in
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
