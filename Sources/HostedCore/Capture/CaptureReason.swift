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
