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

/// Why a reviewer rejected a verification: the codes the console offers (DESIGN.md).
public enum RejectionReason: String, Sendable, CaseIterable {
    case documentUnclear = "document_unclear"
    case faceMismatch = "face_mismatch"
    case premisesMismatch = "premises_mismatch"
    case suspectedFraud = "suspected_fraud"
    case other
}

/// What a reviewer did to a verification without deciding it, recorded as a
/// `verification.review_note` event (`data.kind`).
public enum ReviewAction: String, Sendable {
    /// Opened its artifacts (the detail screen).
    case viewed
    /// Wrote an internal note (its text is kept apart from the event, and erased by redaction).
    case note
}

/// Internal notes: free text for the review team, never shown to the user or the API.
public enum ReviewNoteRules {
    public static let maximumLength = 2000

    /// The note trimmed, or nil when it is empty, too long or holds a control character other
    /// than a line break or tab.
    public static func validated(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumLength,
              !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        else { return nil }
        return trimmed
    }
}
