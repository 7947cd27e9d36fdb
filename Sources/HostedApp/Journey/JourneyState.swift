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
    }

    init(_ v: Verification, returnURL: String?, workflow pinned: Workflow?, continued: Bool = false) {
        verification_id = v.id.rawValue
        status = v.status.rawValue
        workflow = v.workflowKey
        steps = v.steps.map { state in
            let definition = pinned?.steps.first { $0.id == state.id }
            let bounds = definition.flatMap(JourneyService.imageBounds)
            return JourneyStep(id: state.id, type: state.type.rawValue, status: state.statusName,
                               completed_at: APIObjects.timestamp(state.completedAt), min: bounds?.lowerBound,
                               max: bounds?.upperBound, documents: definition?.documents, artifacts: state.artifacts)
        }
        return_url = continued ? nil : returnURL
        self.continued = continued
    }
}
