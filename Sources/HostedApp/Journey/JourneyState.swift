import Foundation
import HostedCore

/// What the journey page is told about its verification: never the mobile number.
struct JourneyState: Encodable {
    let verification_id: String
    let status: String
    let workflow: String
    let steps: [JourneyStep]
    let return_url: String?
    /// This device continued a journey begun on another one: after submit it sends the user back there.
    let continued: Bool
    /// While a reviewer's request to redo steps is open: why, their words, and which steps (all
    /// the reopened ones, those redone since included).
    let resubmission: Resubmission?

    struct Resubmission: Encodable {
        let reason: String?
        let message: String?
        let steps: [String]
    }

    /// A step with the options the page needs to render it.
    struct JourneyStep: Encodable {
        let id: String
        let type: String
        let status: String
        let completed_at: String?
        let min: Int?
        let max: Int?
        let documents: [String]?
        let artifacts: [String]
        /// Photo steps: `guide` or `require` (what a failed check means), whether to ask for the
        /// location, the uploads so far and from which one a failing photo may be kept.
        let quality: String?
        let location: String?
        let attempts: Int?
        let keep_anyway_from: Int?
        /// The checks' verdict on each photo the step holds now (not the superseded ones).
        let captures: [JourneyCapture]?
    }

    struct JourneyCapture: Encodable {
        let id: String
        let passed: Bool
        let reasons: [String]
    }

    init(_ v: Verification, returnURL: String?, workflow pinned: Workflow?, continued: Bool = false) {
        verification_id = v.id.rawValue
        status = v.status.rawValue
        workflow = v.workflowKey
        steps = v.steps.map { state in
            let definition = pinned?.steps.first { $0.id == state.id }
            let bounds = definition.flatMap(JourneyService.imageBounds)
            let photos = bounds != nil
            let current = state.captures.filter { state.artifacts.contains($0.id) }.map { capture in
                JourneyCapture(id: capture.id, passed: capture.quality?.passed ?? true,
                               reasons: capture.quality?.reasons.map(\.rawValue) ?? [])
            }
            return JourneyStep(id: state.id, type: state.type.rawValue, status: state.statusName,
                               completed_at: APIObjects.timestamp(state.completedAt), min: bounds?.lowerBound,
                               max: bounds?.upperBound, documents: definition?.documents, artifacts: state.artifacts,
                               quality: photos ? (definition?.qualityMode ?? .guide).rawValue : nil,
                               location: photos ? definition?.location?.rawValue : nil,
                               attempts: photos ? state.attempts : nil,
                               keep_anyway_from: photos ? CaptureRules.keepAnywayFromAttempt : nil,
                               captures: photos ? current : nil)
        }
        resubmission = v.status == .resubmissionRequested
            ? Resubmission(reason: v.resubmissionReason, message: v.resubmissionMessage,
                           steps: v.reopenedStepIDs)
            : nil
        return_url = continued ? nil : returnURL
        self.continued = continued
    }
}
