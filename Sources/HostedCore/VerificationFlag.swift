/// Something a reviewer should know about a verification before looking at it (the API's
/// `flags`, the console queue's badge). A flag is never cleared: it records what happened.
public enum VerificationFlag: String, Sendable, CaseIterable, Codable {
    /// Someone opened a link to continue on another device and said it was not them.
    case continuationReported = "continuation_reported"
}
