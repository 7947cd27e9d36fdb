/// How a workflow's submitted verifications are decided: by one reviewer, or by two different
/// ones ("four eyes": the first approval is recorded, the second decides).
public struct WorkflowReview: Equatable, Sendable {
    public let approvalsRequired: Int
    /// How many times a reviewer may send a verification back for steps again.
    public let maxResubmissions: Int

    public init(approvalsRequired: Int = 1, maxResubmissions: Int = 2) {
        self.approvalsRequired = approvalsRequired
        self.maxResubmissions = maxResubmissions
    }

    public static let allowedApprovals: ClosedRange<Int> = 1...2
    public static let allowedResubmissions: ClosedRange<Int> = 0...5

    public static func validate(approvalsRequired: Int?, maxResubmissions: Int? = nil) throws(DomainError) -> WorkflowReview {
        let count = approvalsRequired ?? 1
        let resubmissions = maxResubmissions ?? 2
        var errors: [FieldError] = []
        if !allowedApprovals.contains(count) {
            errors.append(FieldError(field: "review.approvals_required", message: "must be 1 or 2"))
        }
        if !allowedResubmissions.contains(resubmissions) {
            errors.append(FieldError(field: "review.max_resubmissions", message: "must be 0 to 5"))
        }
        guard errors.isEmpty else { throw .invalidRequest(detail: "The workflow is not valid.", errors: errors) }
        return WorkflowReview(approvalsRequired: count, maxResubmissions: resubmissions)
    }
}
