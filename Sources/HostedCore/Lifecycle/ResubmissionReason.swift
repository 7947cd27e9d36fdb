/// Why a reviewer asks for steps again: a code the page translates into an instruction.
public enum ResubmissionReason: String, Sendable, Equatable, CaseIterable {
    case photoUnclear = "photo_unclear"
    case faceNotVisible = "face_not_visible"
    case wrongPremises = "wrong_premises"
    case documentUnreadable = "document_unreadable"
    case other
}
