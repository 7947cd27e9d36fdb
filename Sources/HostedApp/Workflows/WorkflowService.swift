import HostedCore
import HostedStorage

/// Workflows as the customer manages them: each create is a new version of its key, checked
/// against the workflow rules; a verification pins the version it was created with.
struct WorkflowService: Sendable {
    let workflows: WorkflowStore
    let clock: any WallClock
    /// Dev mode lets expiry and retention go down to one second.
    let devMode: Bool

    /// What a customer sends to create a workflow version (already type-checked).
    struct CreateInput {
        var key: String?
        var name: String?
        var steps: [StepInput]?
        var expiresAfterSeconds: Int?
        var redactAfterSeconds: Int?
        var approvalsRequired: Int?
        var maxResubmissions: Int?
        var continuationMatching: String?
        var continuationOnReport: String?
    }

    /// The latest version of every workflow of the account.
    func latest(accountID: ObjectID) throws -> [Workflow] {
        try workflows.latestWorkflows(accountID: accountID)
    }

    /// The latest version of `key`.
    func workflow(accountID: ObjectID, key: String) throws -> Workflow {
        guard let workflow = try workflows.workflow(accountID: accountID, key: key) else { throw DomainError.notFound(what: "workflow") }
        return workflow
    }

    /// Checks the input against the workflow rules and stores it as the key's next version.
    func create(accountID: ObjectID, _ input: CreateInput) throws -> Workflow {
        let valid = try Workflow.validate(key: input.key, name: input.name, steps: input.steps)
        let lifecycle = try WorkflowLifecycle.validate(expiresAfterSeconds: input.expiresAfterSeconds.map(Int64.init),
                                                       redactAfterSeconds: input.redactAfterSeconds.map(Int64.init), devMode: devMode)
        let review = try WorkflowReview.validate(approvalsRequired: input.approvalsRequired, maxResubmissions: input.maxResubmissions)
        let continuation = try WorkflowContinuation.validate(matching: input.continuationMatching, onReport: input.continuationOnReport)
        return try workflows.createVersion(accountID: accountID, key: valid.key, name: valid.name, steps: valid.steps,
                                           lifecycle: lifecycle, review: review, continuation: continuation, at: clock.now())
    }
}
