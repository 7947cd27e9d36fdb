/// How a workflow's journeys continue on another device (DESIGN.md, "Continue in your app,
/// report, typed numbers"): the phone picks the computer's number among three (`choose`) or types
/// it (`type`, no blind guess wins one time in three); a "this wasn't me" report flags the
/// verification, and with `onReport: .cancel` also cancels it.
public struct WorkflowContinuation: Equatable, Sendable {
    public enum Matching: String, Sendable, CaseIterable { case choose, type }
    public enum OnReport: String, Sendable, CaseIterable { case flag, cancel }

    public let matching: Matching
    public let onReport: OnReport

    public init(matching: Matching = .choose, onReport: OnReport = .flag) {
        self.matching = matching
        self.onReport = onReport
    }

    /// The workflow's `continuation` object as sent (either member may be missing).
    public static func validate(matching: String?, onReport: String?) throws(DomainError) -> WorkflowContinuation {
        var errors: [FieldError] = []
        let parsedMatching = matching.map { Matching(rawValue: $0) } ?? .choose
        let parsedOnReport = onReport.map { OnReport(rawValue: $0) } ?? .flag
        if parsedMatching == nil {
            errors.append(FieldError(field: "continuation.matching", message: "must be choose or type"))
        }
        if parsedOnReport == nil {
            errors.append(FieldError(field: "continuation.on_report", message: "must be flag or cancel"))
        }
        guard errors.isEmpty, let parsedMatching, let parsedOnReport else {
            throw .invalidRequest(detail: "The workflow is not valid.", errors: errors)
        }
        return WorkflowContinuation(matching: parsedMatching, onReport: parsedOnReport)
    }
}
