/// Why a captured photo may not serve: each a short instruction on the page, the same words in
/// the API, the console and the evidence (DESIGN, "Capture checks and retakes").
public enum CaptureReason: String, Sendable, Equatable, CaseIterable, Codable {
    case tooDark = "too_dark"
    case tooBright = "too_bright"
    case blurry
    case noFace = "no_face"
    case severalFaces = "several_faces"
    case faceTooSmall = "face_too_small"
    case duplicatePhoto = "duplicate_photo"
}

/// Every threshold of the capture checks, in one place. How each was chosen is in
/// docs/capture-checks.md (measured on generated variants of a public-domain portrait).
public enum CaptureThresholds {
    /// Mean luma below this (0 … 1) is `too_dark`: a well-lit face measures 0.45–0.55, the same
    /// photo at a fifth of its light 0.11.
    public static let minimumBrightness = 0.25
    /// More than this fraction of pixels at or above 250 of 255 is `too_bright`.
    public static let maximumClipped = 0.4
    /// A Laplacian variance below this (on the ≤ 640 px grey copy) is `blurry`: a sharp portrait
    /// measures 18–800, the same portrait under a 12-pixel Gaussian blur 3.
    public static let minimumSharpness = 8.0
    /// A face narrower than this fraction of the photo's shorter side is `face_too_small`.
    public static let minimumFaceFraction = 0.2
    /// Difference hashes this many bits apart or closer are `duplicate_photo` (of 64).
    public static let maximumDuplicateDistance = 6
}

/// Judges a photo's measures: the reasons it fails, none when it passes.
public enum CaptureChecks {
    /// The reasons a photo of `step` fails. `earlierHashes`: the hashes of the verification's
    /// other photos (premises photos are compared with them and with the selfie).
    public static func reasons(for measures: PhotoMeasures, step: StepType, earlierHashes: [UInt64] = []) -> [CaptureReason] {
        var reasons: [CaptureReason] = []
        if measures.brightness < CaptureThresholds.minimumBrightness { reasons.append(.tooDark) }
        if measures.clipped > CaptureThresholds.maximumClipped { reasons.append(.tooBright) }
        if measures.sharpness < CaptureThresholds.minimumSharpness { reasons.append(.blurry) }
        switch step {
        case .selfie:
            switch measures.faces.count {
            case 0: reasons.append(.noFace)
            case 1:
                let shorter = min(measures.width, measures.height)
                if Double(measures.faces[0].width) < CaptureThresholds.minimumFaceFraction * Double(shorter) {
                    reasons.append(.faceTooSmall)
                }
            default: reasons.append(.severalFaces)
            }
        case .premisesPhotos:
            if earlierHashes.contains(where: { distance($0, measures.hash) <= CaptureThresholds.maximumDuplicateDistance }) {
                reasons.append(.duplicatePhoto)
            }
        case .profile, .digilocker, .document:
            break
        }
        return reasons
    }

    /// Bits that differ between two difference hashes.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}
