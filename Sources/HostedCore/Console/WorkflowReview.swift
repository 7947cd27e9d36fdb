/// How a workflow's submitted verifications are decided: by one reviewer, or by two different
/// ones ("four eyes": the first approval is recorded, the second decides).
public struct WorkflowReview: Equatable, Sendable {
    public let approvalsRequired: Int

    public init(approvalsRequired: Int = 1) {
        self.approvalsRequired = approvalsRequired
    }

    public static let allowedApprovals: ClosedRange<Int> = 1...2

    public static func validate(approvalsRequired: Int?) throws(DomainError) -> WorkflowReview {
        let count = approvalsRequired ?? 1
        guard allowedApprovals.contains(count) else {
            throw .invalidRequest(detail: "The workflow is not valid.",
                                  errors: [FieldError(field: "review.approvals_required", message: "must be 1 or 2")])
        }
        return WorkflowReview(approvalsRequired: count)
    }
}
