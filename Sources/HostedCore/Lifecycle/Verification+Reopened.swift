import Foundation

extension Verification {
    /// The steps a reviewer sent back while a resubmission is open: those not completed since
    /// the last submit (every step was complete then, so a step completed after it was reopened).
    /// Empty in any other status.
    public var reopenedStepIDs: [String] {
        guard status == .resubmissionRequested else { return [] }
        return steps.filter { step in
            guard let completed = step.completedAt else { return true }
            // In the stores' milliseconds: a step completed in the submit's millisecond was before it.
            return submittedAt.map { completed.unixMilliseconds > $0.unixMilliseconds } ?? true
        }.map(\.id)
    }
}
