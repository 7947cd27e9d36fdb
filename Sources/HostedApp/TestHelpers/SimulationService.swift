import Foundation
import HostedCore
import HostedImaging
import HostedStorage

/// The test helpers' front door (`POST /v1/test_helpers/verifications/{id}/simulate`): drives a
/// test verification through the one status machine as the person or a reviewer would, with
/// real events (each `data.simulated: true`, the test key as actor) and so real webhooks. An
/// action its state does not allow is the machine's own 409, and changes nothing.
struct SimulationService: Sendable {
    let verifications: VerificationStore
    let workflows: WorkflowStore
    /// The steps are completed by the journey's own calls (forms, photos through the capture
    /// checks, completion, submit), as the person's would be.
    let journey: JourneyService
    let samples: SimulationSamples
    let clock: any WallClock
    let random: any RandomSource

    enum Action: String, CaseIterable, Sendable {
        case signIn = "sign_in"
        case completeSteps = "complete_steps"
        case submit, approve, reject
        case requestResubmission = "request_resubmission"
        case expire
    }

    /// One simulated action and what it takes.
    struct Simulation: Sendable {
        let action: Action
        /// `reject` only.
        var rejection: RejectionReason?
        /// `request_resubmission` only.
        var resubmission: DecisionService.ResubmissionRequest?
    }

    /// How a simulated user signs in: by the handoff link, the way a customer's backend sends
    /// its users in (a code by SMS needs a number and a text; a continuation, a second device).
    static let signInMethod = SignInMethod.handoff

    /// The simulation in a body, each field checked (`reason` and `steps`/`message` only for the
    /// actions that take them; any other field is unknown); nil when one is wrong, its error
    /// added to `body`.
    static func simulation(in body: inout JSONObject) -> Simulation? {
        guard let name = body.string("action", required: true) else { return nil }
        guard let action = Action(rawValue: name) else {
            body.addError("action", "must be one of \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        var simulation = Simulation(action: action)
        switch action {
        case .reject:
            guard let reason = body.string("reason", required: true) else { return nil }
            guard let code = RejectionReason(rawValue: reason) else {
                body.addError("reason", "must be one of \(RejectionReason.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            simulation.rejection = code
        case .requestResubmission:
            // The same body and rules as `POST /v1/verifications/{id}/resubmission`.
            guard let request = DecisionService.resubmissionRequest(in: &body) else { return nil }
            simulation.resubmission = request
        case .signIn, .completeSteps, .submit, .approve, .expire:
            break
        }
        return simulation
    }

    /// Every action but `complete_steps` (whose photos are decoded first: `plan`, `decode`,
    /// `completeSteps`), each in one transaction.
    func simulate(_ simulation: Simulation, tenancy: Tenancy, id: ObjectID, by actor: EventActor) throws -> Verification {
        switch simulation.action {
        case .signIn:
            return try apply(.signedIn(method: Self.signInMethod), tenancy: tenancy, id: id, by: actor)
        case .submit:
            return try journey.submit(try verification(tenancy: tenancy, id: id), simulatedBy: actor)
        case .approve:
            return try apply(.decided(approved: true, reason: nil), tenancy: tenancy, id: id, by: actor)
        case .reject:
            return try apply(.decided(approved: false, reason: simulation.rejection?.rawValue ?? RejectionReason.other.rawValue),
                             tenancy: tenancy, id: id, by: actor)
        case .requestResubmission:
            guard let request = simulation.resubmission else { throw DomainError.invalidRequest(detail: "The request has invalid fields.") }
            let current = try verification(tenancy: tenancy, id: id)
            guard let workflow = try workflows.workflow(accountID: tenancy.accountID, key: current.workflowKey,
                                                        version: current.workflowVersion)
            else { throw DomainError.notFound(what: "workflow") }
            let expiresAt = clock.now().addingTimeInterval(TimeInterval(workflow.lifecycle.expiresAfterSeconds))
            // A simulation texts nobody: `notify` is taken, as the resubmission call takes it, and ignored.
            return try apply(.resubmissionRequested(steps: request.steps, reason: request.reason, message: request.message,
                                                    expiresAt: expiresAt, limit: workflow.review.maxResubmissions),
                             tenancy: tenancy, id: id, by: actor)
        case .expire:
            return try apply(.expired, tenancy: tenancy, id: id, by: actor)
        case .completeSteps:
            throw DomainError.invalidRequest(detail: "complete_steps decodes its photos first.")
        }
    }

    func verification(tenancy: Tenancy, id: ObjectID) throws -> Verification {
        guard let found = try verifications.verification(tenancy: tenancy, id: id) else { throw DomainError.notFound(what: "verification") }
        return found
    }

    /// `event` through the status machine, marked simulated, in one transaction: an event the
    /// state does not allow throws there and nothing is written.
    func apply(_ event: VerificationEvent, tenancy: Tenancy, id: ObjectID, by actor: EventActor) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: tenancy, id: id, at: now) { verification in
            try verification.apply(event, at: now, by: actor, simulated: true)
        }
    }
}
