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
