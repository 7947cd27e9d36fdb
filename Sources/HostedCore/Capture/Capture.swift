import Foundation

/// One photo taken for a step, kept with the verification: when it arrived, what the checks
/// found, and whether a retake replaced it (a superseded photo stays for the reviewer until
/// redaction). Kept in the step's state, so a poll reads it with the row.
public struct Capture: Sendable, Equatable, Codable {
    public let id: String
    public let contentType: String
    /// Server time of the upload.
    public let capturedAt: Date
    /// Nil for what is not a photo (a profile form, a DigiLocker document).
    public var quality: CaptureQuality?
    /// A retake replaced it.
    public var superseded: Bool
    /// The photo's difference hash, to find near copies among the verification's photos (not
    /// shown: it says nothing about a person, only how the picture's brightness is laid out).
    public let hash: UInt64?
    /// The stored photo's size in pixels (the face box is in these pixels); nil before it was kept.
    public let width: Int?
    public let height: Int?
    /// Where it was taken, when the step asked and the user agreed.
    public internal(set) var location: CaptureLocation?

    public init(id: String, contentType: String, capturedAt: Date, quality: CaptureQuality?, superseded: Bool = false,
                hash: UInt64? = nil, width: Int? = nil, height: Int? = nil, location: CaptureLocation? = nil) {
        self.id = id
        self.contentType = contentType
        self.capturedAt = capturedAt
        self.quality = quality
        self.superseded = superseded
        self.hash = hash
        self.width = width
        self.height = height
        self.location = location
    }
}

/// The rules around capture checks that are not measurements.
public enum CaptureRules {
    /// From this attempt on a step, the user may keep a photo that fails (nobody is locked out:
    /// a camera check must have an alternative).
    public static let keepAnywayFromAttempt = 3

    /// Most photos one step takes in all, retakes included: every photo is kept (superseded ones
    /// for the reviewer) and its capture lives in the verification's row, so both stay bounded.
    public static let maximumAttempts = 20

    /// The hashes a new photo of `step` is compared with: the verification's other photos that
    /// still count (premises photos are compared with each other and with the selfie).
    public static func comparedHashes(for step: StepType, in steps: [StepState]) -> [UInt64] {
        guard step == .premisesPhotos else { return [] }
        return steps.filter { $0.type == .premisesPhotos || $0.type == .selfie }
            .flatMap(\.captures).filter { !$0.superseded }.compactMap(\.hash)
    }
}
