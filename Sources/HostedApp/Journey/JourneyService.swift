import Foundation
import HostedCore
import HostedImaging
import HostedStorage

/// The user's progress through the steps of a verification: forms, images, completion, submit.
struct JourneyService: Sendable {
    let verifications: VerificationStore
    let workflows: WorkflowStore
    let artifacts: ArtifactStore
    /// Uploads are decoded there, off the HTTP workers.
    let decodes: DecodeQueue
    let returnURLs: ReturnURLRegistry
    /// Signs the result the return URL carries in its fragment.
    let results: ResultSigning
    let clock: any WallClock
    let random: any RandomSource

    /// The pinned workflow's definition of a step.
    func definition(of stepID: String, in verification: Verification) throws -> WorkflowStep {
        guard let workflow = try workflows.workflow(accountID: verification.accountID, key: verification.workflowKey,
                                                    version: verification.workflowVersion),
              let step = workflow.steps.first(where: { $0.id == stepID })
        else { throw DomainError.notFound(what: "step") }
        return step
    }

    /// How many images a step takes.
    static func imageBounds(_ step: WorkflowStep) -> ClosedRange<Int>? {
        switch step.type {
        case .selfie: 1...1
        case .document: 1...2
        case .premisesPhotos: (step.min ?? 1)...(step.max ?? 4)
        case .profile, .digilocker: nil
        }
    }

    /// Changes a step of an open, unsubmitted verification; refuses completed steps. With
    /// `simulatedBy` (a test helper's API key), the completion is that actor's, marked simulated.
    func changeStep(_ verification: Verification, _ stepID: String, simulatedBy: EventActor? = nil,
                            _ change: (inout StepState, inout Verification, DatabaseConnection) throws -> Void) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: verification.tenancy, id: verification.id, at: now) { current, connection in
            guard current.status.isEditable else {
                throw DomainError.conflict(detail: "This verification is \(current.status.rawValue).", code: .verificationClosed)
            }
            guard let index = current.steps.firstIndex(where: { $0.id == stepID }) else { throw DomainError.notFound(what: "step") }
            guard current.steps[index].completedAt == nil else {
                throw DomainError.conflict(detail: "This step is already complete.", code: .stepCompleted)
            }
            var step = current.steps[index]
            try change(&step, &current, connection)
            // Completing goes through the status machine, which records the event.
            let completes = step.completedAt != nil
            step.completedAt = nil
            current.steps[index] = step
            if completes {
                try current.apply(.stepCompleted(stepID: stepID), at: now, by: simulatedBy ?? .journey, simulated: simulatedBy != nil)
            }
        }
    }

    /// Stores the profile form as the step's artifact and completes the step.
    func submitProfile(_ verification: Verification, stepID: String, fullName: String?, dateOfBirth: String?,
                       simulatedBy: EventActor? = nil) throws -> Verification {
        guard try definition(of: stepID, in: verification).type == .profile else { throw DomainError.notFound(what: "step") }
        let today = String(APIObjects.timestamp(clock.now())?.prefix(10) ?? "")
        let form = try ProfileForm.validate(fullName: fullName, dateOfBirth: dateOfBirth, today: today)
        let content = Array(try JSONEncoder().encode(form))
        return try changeStep(verification, stepID, simulatedBy: simulatedBy) { step, current, connection in
            let id = ObjectID(.artifact, using: random)
            try artifacts.insert(id: id, verificationID: current.id, stepID: stepID, contentType: "application/json",
                                 content: content, at: clock.now(), on: connection)
            step.artifacts = [id.rawValue]
            step.completedAt = clock.now()
        }
    }

    /// An image step's type and how many images it takes; not found when it is no image step of
    /// this verification.
    func imageStep(_ stepID: String, in verification: Verification) throws -> (WorkflowStep, bounds: ClosedRange<Int>) {
        let step = try definition(of: stepID, in: verification)
        guard let bounds = Self.imageBounds(step) else { throw DomainError.notFound(what: "step") }
        return (step, bounds)
    }

    /// Submits a verification whose every step is complete.
    func submit(_ verification: Verification, simulatedBy: EventActor? = nil) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: verification.tenancy, id: verification.id, at: now) { current in
            try current.apply(.submitted, at: now, by: simulatedBy ?? .journey, simulated: simulatedBy != nil)
        }
    }

    /// Where the browser goes after submit: the return URL with `verification_id` and `status`
    /// added to its query (an existing query is kept).
    /// What the page is told about its verification (its steps with their bounds, the return URL
    /// if it is still registered).
    func state(of verification: Verification, session: SignInStore.Session) throws -> JourneyState {
        let workflow = try workflows.workflow(accountID: verification.accountID, key: verification.workflowKey,
                                              version: verification.workflowVersion)
        let returnURL = try returnURLs.stillRegistered(session.returnURL ?? verification.returnURL, accountID: verification.accountID)
        return JourneyState(verification, returnURL: returnURL, workflow: workflow, continued: session.continued)
    }

    /// Where the page sends the user after submit: the visit's (or the verification's) return
    /// URL if it is still registered, with the outcome added to its query and the signed result
    /// (echoing the visit's handoff `nonce`) as its fragment, `#hosted_result=<JWS>`; nil otherwise.
    func redirect(after verification: Verification, visitReturnURL: String?, nonce: String?) throws -> String? {
        guard let returnURL = try returnURLs.stillRegistered(visitReturnURL ?? verification.returnURL, accountID: verification.accountID)
        else { return nil }
        return Self.redirectURL(returnURL, verification: verification, signedResult: results.fragment(for: verification, nonce: nonce))
    }

    static func redirectURL(_ returnURL: String?, verification: Verification, signedResult: String?) -> String? {
        guard let returnURL else { return nil }
        let items = [(name: "verification_id", value: verification.id.rawValue), (name: "status", value: verification.status.rawValue)]
        // The registered URL's text with the items appended; a URL that function does not write
        // exactly as `URLComponents` would (a percent escape in it, an empty pair) goes that way.
        guard let url = ReturnURLQuery.appending(items, to: returnURL) ?? Self.appendingThroughComponents(items, to: returnURL)
        else { return nil }
        // Appended, not set through `components.fragment` (which scans and escapes every
        // character): a JWS is base64url and dots, nothing a fragment must escape, and a
        // registered return URL has no fragment of its own.
        return signedResult.map { url + "#hosted_result=" + $0 } ?? url
    }

    /// `url` with `items` added to its query through `URLComponents` (its query decoded into
    /// items and written back): how every redirect was built before `ReturnURLQuery`.
    static func appendingThroughComponents(_ items: [(name: String, value: String)], to url: String) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        var queryItems = components.queryItems ?? []
        queryItems += items.map { URLQueryItem(name: $0.name, value: $0.value) }
        components.queryItems = queryItems
        return components.string
    }
}
