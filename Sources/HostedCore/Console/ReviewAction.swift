/// What a reviewer did to a verification without deciding it, recorded as a
/// `verification.review_note` event (`data.kind`).
public enum ReviewAction: String, Sendable {
    /// Opened its artifacts (the detail screen).
    case viewed
    /// Wrote an internal note (its text is kept apart from the event, and erased by redaction).
    case note
}
