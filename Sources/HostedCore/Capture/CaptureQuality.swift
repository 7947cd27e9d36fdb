/// The capture checks' verdict on one stored photo, as the upload answers it and the API, the
/// console and the evidence show it. No biometric template: a face is a box.
public struct CaptureQuality: Sendable, Equatable, Codable {
    public var passed: Bool { reasons.isEmpty }
    public var reasons: [CaptureReason]
    /// Mean luma, 0 … 1.
    public var brightness: Double
    /// Variance of the Laplacian on the measured grey copy.
    public var sharpness: Double
    /// Faces counted (selfies; 0 for other photos).
    public var faces: Int
    /// The face, in pixels of the stored photo (a selfie with one face).
    public var face: FaceBox?
    /// This step's upload count when the photo arrived (1 for the first).
    public var attempt: Int
    /// The user kept the photo although it fails (allowed from the third attempt on).
    public var acceptedByUser: Bool

    public init(reasons: [CaptureReason], brightness: Double, sharpness: Double, faces: Int, face: FaceBox?, attempt: Int,
                acceptedByUser: Bool = false) {
        self.reasons = reasons
        self.brightness = brightness
        self.sharpness = sharpness
        self.faces = faces
        self.face = face
        self.attempt = attempt
        self.acceptedByUser = acceptedByUser
    }

    /// The verdict on `measures` for a photo of `step`, its `attempt`-th upload.
    public init(_ measures: PhotoMeasures, step: StepType, attempt: Int, earlierHashes: [UInt64]) {
        let faces = step == .selfie ? measures.faces : []
        self.init(reasons: CaptureChecks.reasons(for: measures, step: step, earlierHashes: earlierHashes),
                  brightness: measures.brightness, sharpness: measures.sharpness, faces: faces.count,
                  face: faces.count == 1 ? faces[0] : nil, attempt: attempt)
    }
}
