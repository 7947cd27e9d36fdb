/// The stable event types (DESIGN.md, "Verification lifecycle").
public enum EventType: String, Sendable, CaseIterable {
    case created = "verification.created"
    case updated = "verification.updated"
    case handoffCreated = "verification.handoff_created"
    case signedIn = "verification.signed_in"
    case stepCompleted = "verification.step_completed"
    case submitted = "verification.submitted"
    case approved = "verification.approved"
    case rejected = "verification.rejected"
    case canceled = "verification.canceled"
    case expired = "verification.expired"
    case redacted = "verification.redacted"
    case reviewNote = "verification.review_note"
    case continuationCreated = "verification.continuation_created"
    case continuationMatched = "verification.continuation_matched"
    case continuationFailed = "verification.continuation_failed"
}
