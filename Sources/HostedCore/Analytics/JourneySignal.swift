/// What the journey counts (DESIGN.md, "Journey analytics"): each signal is a fact about a
/// step of the journey, never about the person taking it.
public enum JourneySignal: String, Sendable, CaseIterable, Codable {
    /// The journey page was served for a verification id, counted once per verification and
    /// device class (a reload is not a new visit).
    case opened
    case signedIn = "signed_in"
    case stepViewed = "step_viewed"
    case stepCompleted = "step_completed"
    /// A photo replaced after a failed check, once per reason of that photo.
    case captureRetake = "capture_retake"
    case cameraUnavailable = "camera_unavailable"
    case continuedElsewhere = "continued_elsewhere"
    case submitted

    /// The signals the page reports itself (`POST /j/{id}/api/signals`); the others are seen
    /// by the server as they happen and cannot be sent by a page.
    public static let fromPage: Set<JourneySignal> = [.stepViewed, .cameraUnavailable, .continuedElsewhere]

    /// The funnel's stages among the signals, for `hosted_journey_stage_total`.
    public var isStage: Bool { self == .opened || self == .signedIn || self == .submitted }
}
