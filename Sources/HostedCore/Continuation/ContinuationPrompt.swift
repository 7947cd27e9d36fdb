import Foundation

/// What the phone is asked once it holds a continuation: pick the computer's number among
/// `options` (`choose`) or type it (`type`: no options are sent), shown with where and when the
/// request came from. The number itself is never part of it.
public struct ContinuationPrompt: Equatable, Sendable {
    public let matching: WorkflowContinuation.Matching
    /// Nil when the number is typed.
    public let options: [String]?
    public let origin: UserAgentSummary
    public let requestedAt: Date

    public init(number: String, matching: WorkflowContinuation.Matching, origin: UserAgentSummary, requestedAt: Date,
                using random: any RandomSource) {
        self.matching = matching
        options = matching == .choose ? ContinuationRules.options(including: number, using: random) : nil
        self.origin = origin
        self.requestedAt = requestedAt
    }
}
