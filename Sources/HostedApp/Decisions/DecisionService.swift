import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// The one way a verification is decided, behind both `POST /v1/verifications/{id}/decision` and
/// the console: the status machine's rules (submitted only; four eyes when the workflow asks for
/// two approvals) whoever the actor is, with the actor on every event.
struct DecisionService: Sendable {
    let verifications: VerificationStore
    let notes: ReviewNoteStore
    /// The pinned workflow versions (a resubmission's time and cap).
    let workflows: WorkflowStore
    /// Where a resubmission's SMS goes: sealed into the queue, then `messageQueued`.
    let smsBox: SecretBox
    let publicURL: URL
    let messageQueued: @Sendable () -> Void
    let clock: any WallClock
    let random: any RandomSource

    static let maximumReasonLength = 500

    /// What a decision call did.
    enum Outcome: String {
        case approved, rejected
        /// Four eyes: this approval was recorded; another reviewer's decides.
        case approvalRecorded = "approval_recorded"
    }

    /// Approves or rejects a submitted verification of `tenancy` as `actor`; an operator's note
    /// is kept with it (its text in `review_notes`, its event in the log), in the same transaction.
    func decide(tenancy: Tenancy, id: ObjectID, approved: Bool, reason: String?, note: String? = nil,
                by actor: EventActor) throws -> (Verification, Outcome) {
        let now = clock.now()
        let decided = try verifications.update(tenancy: tenancy, id: id, at: now) { verification, connection in
            try verification.apply(.decided(approved: approved, reason: reason), at: now, by: actor)
            if let note { try addNote(note, to: &verification, by: actor, at: now, on: connection) }
        }
        let outcome: Outcome = switch decided.status {
        case .approved: .approved
        case .rejected: .rejected
        default: .approvalRecorded
        }
        return (decided, outcome)
    }

    /// Records an internal note by an operator.
    func note(tenancy: Tenancy, id: ObjectID, text: String, by actor: EventActor) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: tenancy, id: id, at: now) { verification, connection in
            try addNote(text, to: &verification, by: actor, at: now, on: connection)
        }
    }

    /// Records that an operator opened a verification's artifacts.
    func recordView(tenancy: Tenancy, id: ObjectID, by actor: EventActor) throws -> Verification {
        let now = clock.now()
        return try verifications.update(tenancy: tenancy, id: id, at: now) { verification in
            try verification.apply(.reviewed(.viewed), at: now, by: actor)
        }
    }

    private func addNote(_ text: String, to verification: inout Verification, by actor: EventActor, at time: Date,
                         on connection: DatabaseConnection) throws {
        guard let operatorID = actor.id.flatMap({ ObjectID(.operator, parsing: $0) }) else { return }
        try verification.apply(.reviewed(.note), at: time, by: actor)
        try notes.insert(id: ObjectID(.reviewNote, using: random), verificationID: verification.id, operatorID: operatorID,
                         body: text, at: time, on: connection)
    }
}
