/// Where a verification is in its life.
public enum VerificationStatus: String, Sendable, CaseIterable, Codable {
    case created
    case inProgress = "in_progress"
    case submitted
    case approved
    case rejected
    case canceled
    case expired

    /// Closed verifications accept no change; a new one may be created for the same user and workflow.
    public var isClosed: Bool { [.approved, .rejected, .canceled, .expired].contains(self) }
    /// Details (mobile, return URL, metadata) can change only before the user submits.
    public var isEditable: Bool { self == .created || self == .inProgress }
}
