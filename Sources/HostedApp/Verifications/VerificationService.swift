import Foundation
import HostedCore
import HostedStorage

/// The rules of creating and changing verifications, over the stores.
struct VerificationService: Sendable {
    let verifications: VerificationStore
    let workflows: WorkflowStore
    let returnURLs: ReturnURLStore
    let artifacts: ArtifactStore
    let policy: ReturnURLPolicy
    let clock: any WallClock
    let random: any RandomSource

    /// What a customer sends to create a verification (already type-checked).
    struct CreateInput {
        var userID: String?
        var workflowKey: String?
        var mobile: String?
        var returnURL: String?
        var metadata: [String: String]?
    }

    /// Creates a verification, or returns the open one for the same user and workflow.
    /// `repeatChecked`: `openForRepeat` already found nothing to answer with.
    func create(tenancy: Tenancy, _ input: CreateInput, by actor: EventActor,
                repeatChecked: Bool = false) throws -> (Verification, created: Bool) {
        let accountID = tenancy.accountID
        var errors = Self.fieldErrors(input)
        // A repeat (the customer's retry, the common case) is answered by one read: the open
        // verification for this user and workflow, if it is not past its time. The insert below
        // still decides every race; this only skips its work when there is nothing to create.
        if !repeatChecked, let (userID, key) = Self.repeatable(input, errors: errors),
           let open = try verifications.openVerification(tenancy: tenancy, userID: userID, workflowKey: key),
           !open.isDueToExpire(at: clock.now()) {
            return (open, false)
        }
        var workflow: Workflow?
        if let key = input.workflowKey {
            workflow = try workflows.workflow(accountID: accountID, key: key)
            if workflow == nil { errors.append(FieldError(field: "workflow", message: "no such workflow")) }
        }
        guard errors.isEmpty, let userID = input.userID, let mobile = input.mobile, let workflow else {
            throw DomainError.invalidRequest(detail: "The verification is not valid.", errors: errors)
        }
        let returnURL = try input.returnURL.map { try registeredReturnURL($0, accountID: accountID) }
        let now = clock.now()
        var verification = Verification(
            id: ObjectID(.verification, using: random), accountID: accountID, userID: userID, workflowKey: workflow.key,
            workflowVersion: workflow.version, status: .created, mobile: mobile, returnURL: returnURL,
            metadata: input.metadata ?? [:], steps: workflow.steps.map { StepState(id: $0.id, type: $0.type) },
            createdAt: now, updatedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(workflow.lifecycle.expiresAfterSeconds)),
            redactAfterSeconds: workflow.lifecycle.redactAfterSeconds,
            approvalsRequired: workflow.review.approvalsRequired, livemode: tenancy.livemode)
        try verification.apply(.created, at: now, by: actor)
        return try verifications.createOrFetchOpen(verification)
    }

    /// A create's repeat check through `Database.submit`, for an input `repeatable` accepts:
    /// `completion` gets the open verification to answer with (and as of when it was read), or
    /// nil when there is none (or it is past its time) and the create must go on. On PostgreSQL
    /// `completion` runs later on the pipeline's thread, on SQLite before this returns.
    func openForRepeat(tenancy: Tenancy, userID: String, workflowKey: String,
                       completion: @escaping @Sendable (Result<FoundVerification?, any Error>) -> Void) {
        let clock = self.clock
        verifications.openVerification(tenancy: tenancy, userID: userID, workflowKey: workflowKey) { found in
            completion(found.map { open in open.flatMap { $0.verification.isDueToExpire(at: clock.now()) ? nil : $0 } })
        }
    }

    /// The user and workflow of a create that a repeat may answer: a valid body with no return
    /// URL (a return URL must be checked against the registered ones, so it goes the long way).
    static func repeatable(_ input: CreateInput) -> (userID: String, key: String)? {
        repeatable(input, errors: fieldErrors(input))
    }

    private static func repeatable(_ input: CreateInput, errors: [FieldError]) -> (userID: String, key: String)? {
        guard errors.isEmpty, input.returnURL == nil, let userID = input.userID, input.mobile != nil,
              let key = input.workflowKey else { return nil }
        return (userID, key)
    }

    private static func fieldErrors(_ input: CreateInput) -> [FieldError] {
        var errors: [FieldError] = []
        if let userID = input.userID, !VerificationRules.isValidUserID(userID) {
            errors.append(FieldError(field: "user_id", message: "must be 1 to 255 characters, none of them a control character"))
        }
        if let mobile = input.mobile, !VerificationRules.isValidMobile(mobile) {
            errors.append(FieldError(field: "mobile", message: "must be an E.164 number such as +919876543210", code: .mobileInvalid))
        }
        errors += VerificationRules.metadataErrors(input.metadata ?? [:])
        return errors
    }

    /// Changes mobile, return URL or metadata while the verification is still editable.
    func update(tenancy: Tenancy, id: ObjectID, mobile: String?, returnURL: String??, metadata: [String: String]?,
                by actor: EventActor) throws -> Verification {
        var errors: [FieldError] = []
        if let mobile, !VerificationRules.isValidMobile(mobile) {
            errors.append(FieldError(field: "mobile", message: "must be an E.164 number such as +919876543210", code: .mobileInvalid))
        }
        if let metadata { errors += VerificationRules.metadataErrors(metadata) }
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The update is not valid.", errors: errors) }
        let checkedReturnURL: String?? = try returnURL.map { url in try url.map { try registeredReturnURL($0, accountID: tenancy.accountID) } }
        let now = clock.now()
        return try verifications.update(tenancy: tenancy, id: id, at: now) { verification in
            let before = verification
            if let mobile { verification.mobile = mobile }
            if let checkedReturnURL { verification.returnURL = checkedReturnURL }
            if let metadata { verification.metadata = metadata }
            let fields = [("mobile", verification.mobile != before.mobile), ("return_url", verification.returnURL != before.returnURL),
                          ("metadata", verification.metadata != before.metadata)].filter(\.1).map(\.0)
            // A change of nothing is answered as is (and refused once closed, like any change).
            guard !fields.isEmpty || !verification.status.isEditable else { return }
            try verification.apply(.updated(fields: fields), at: now, by: actor)
        }
    }

    /// Redacts a verification in a terminal state (repeating it is a no-op).
    func redact(tenancy: Tenancy, id: ObjectID, by actor: EventActor) throws -> Verification {
        let now = clock.now()
        return try verifications.redact(tenancy: tenancy, id: id, at: now) { try $0.apply(.redacted, at: now, by: actor) }
    }

    /// Cancels; already-canceled is answered as is, a decided or expired one is refused.
    func cancel(tenancy: Tenancy, id: ObjectID, by actor: EventActor) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: tenancy, id: id, at: now) { verification in
            try verification.apply(.canceled, at: now, by: actor)
        }
    }

    /// An artifact of a verification of `tenancy`: its content type and bytes.
    func artifact(tenancy: Tenancy, verificationID: ObjectID, artifactID: ObjectID?) throws -> (contentType: String, content: [UInt8]) {
        guard try verifications.verification(tenancy: tenancy, id: verificationID) != nil, let artifactID,
              let found = try artifacts.content(id: artifactID, verificationID: verificationID)
        else { throw DomainError.notFound(what: "artifact") }
        return found
    }

    private func registeredReturnURL(_ text: String, accountID: ObjectID) throws -> String {
        try policy.requireRegistered(text, registered: try returnURLs.list(accountID: accountID).map(\.url)).url
    }

}
