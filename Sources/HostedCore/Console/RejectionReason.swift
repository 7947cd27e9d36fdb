/// Why a reviewer rejected a verification: the codes the console offers (DESIGN.md).
public enum RejectionReason: String, Sendable, CaseIterable {
    case documentUnclear = "document_unclear"
    case faceMismatch = "face_mismatch"
    case premisesMismatch = "premises_mismatch"
    case suspectedFraud = "suspected_fraud"
    case other
}
