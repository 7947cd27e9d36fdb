import Foundation

extension Verification {
    /// As `apply(_:at:by:)`; with `simulated`, every event this change records carries
    /// `data.simulated: true`: the change was made by a test helper
    /// (`POST /v1/test_helpers/verifications/{id}/simulate`, docs/test-mode.md), not by the person
    /// or a reviewer. Only a test verification can be simulated on (403 `test_mode_only`).
    public mutating func apply(_ event: VerificationEvent, at time: Date, by actor: EventActor, simulated: Bool) throws(DomainError) {
        guard simulated else { return try apply(event, at: time, by: actor) }
        guard !livemode else {
            throw .forbidden(detail: "Only a test verification can be simulated on.", code: .testModeOnly)
        }
        let first = unwrittenEvents.count
        try apply(event, at: time, by: actor)
        for index in unwrittenEvents.indices.dropFirst(first) {
            let draft = unwrittenEvents[index]
            unwrittenEvents[index] = EventDraft(draft.type, actor: draft.actor, data: draft.data.merging(["simulated": .bool(true)]) { $1 })
        }
    }
}
