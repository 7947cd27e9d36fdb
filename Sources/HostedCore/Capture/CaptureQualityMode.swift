/// What a failed capture check means for an image step (the step option `quality`).
public enum CaptureQualityMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// The user is told and may keep the photo (the default).
    case guide
    /// Completing the step answers 409 `capture_quality` while a photo of it fails, until the
    /// user keeps it anyway from the third attempt on (`CaptureRules.keepAnywayFromAttempt`).
    case require
}
