/// The kinds of step a workflow can hold.
public enum StepType: String, Sendable, CaseIterable, Codable {
    case profile
    case selfie
    case premisesPhotos = "premises_photos"
    case document
    case digilocker
}
