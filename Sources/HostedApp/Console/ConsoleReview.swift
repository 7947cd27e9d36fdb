import Foundation
import HostedCore
import HostedImaging
import HostedStorage

/// What the console shows about an account's verifications: the queue and one verification's
/// evidence (each step's data, its images, the event timeline, the notes). An operator only
/// ever reaches its own account's verifications: every read is by `(account, id)`.
struct ConsoleReview: Sendable {
    let verifications: VerificationStore
    let workflows: WorkflowStore
    let artifacts: ArtifactStore
    let events: EventStore
    let notes: ReviewNoteStore
    let operators: OperatorStore
    /// Display copies: the stored (already re-encoded) photo shrunk again by libvips.
    let thumbnails: any ImageNormalizer
    /// The tabs' counts, recounted at most every few seconds for a large account.
    let queueCounts = QueueCounts()

    // MARK: Queue

    struct QueueRow: Encodable {
        let id: String
        let user_id: String?
        let workflow: String
        let status: String
        let created_at: String?
        let submitted_at: String?
        let approvals: Int
        let approvals_required: Int
        /// What a reviewer should know first (the queue's badge).
        let flags: [String]

        init(_ v: Verification) {
            id = v.id.rawValue
            user_id = v.redactedAt == nil ? v.userID : nil
            workflow = v.workflowKey
            status = v.status.rawValue
            created_at = APIObjects.timestamp(v.createdAt)
            submitted_at = APIObjects.timestamp(v.submittedAt)
            approvals = v.approvals.count
            approvals_required = v.approvalsRequired
            flags = v.flags.map(\.rawValue)
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(user_id, forKey: .user_id)
            try c.encode(workflow, forKey: .workflow)
            try c.encode(status, forKey: .status)
            try c.encode(created_at, forKey: .created_at)
            try c.encode(submitted_at, forKey: .submitted_at)
            try c.encode(approvals, forKey: .approvals)
            try c.encode(approvals_required, forKey: .approvals_required)
            try c.encode(flags, forKey: .flags)
        }

        enum CodingKeys: String, CodingKey { case id, user_id, workflow, status, created_at, submitted_at, approvals, approvals_required, flags }
    }

    struct Queue: Encodable {
        let object = "list"
        let data: [QueueRow]
        let has_more: Bool
        let counts: [String: Int]
        /// A count above this means "more than this" (each status is counted that far only).
        let counts_limit: Int
        let workflows: [String]
    }

    func queue(_ op: Operator, _ tenancy: Tenancy, statuses: [VerificationStatus], workflow: String?, userID: String?, limit: Int,
               startingAfter: ObjectID?) throws -> Queue {
        let (page, hasMore): ([Verification], Bool)
        do {
            (page, hasMore) = try verifications.queue(tenancy: tenancy, statuses: statuses, workflowKey: workflow, userID: userID,
                                                      limit: limit, startingAfter: startingAfter)
        } catch is VerificationStore.UnknownCursor {
            throw DomainError.invalidRequest(detail: "The query is not valid.",
                                             errors: [FieldError(field: "starting_after", message: "must be a verification of this queue")])
        }
        let store = verifications
        let counts = try queueCounts.counts(of: tenancy) { try store.counts(tenancy: tenancy, cappedAt: QueueCounts.cap) }
        return Queue(data: page.map(QueueRow.init), has_more: hasMore,
                     counts: Dictionary(uniqueKeysWithValues: VerificationStatus.allCases.map { ($0.rawValue, counts[$0] ?? 0) }),
                     counts_limit: QueueCounts.cap,
                     workflows: try workflows.latestWorkflows(accountID: op.accountID).map(\.key))
    }

    // MARK: Detail

    struct Detail: Encodable {
        let verification: VerificationView
        let steps: [StepView]
        let events: [EventView]
        let notes: [NoteView]
        let can_decide: Bool
        let reasons: [String]
        /// "Ask for a retake": only while submitted, for an operator whose role decides.
        let can_resubmit: Bool
        let resubmission_reasons: [String]
    }

    struct VerificationView: Encodable {
        let id: String
        let user_id: String?
        let workflow: String
        let workflow_version: Int
        let status: String
        let mobile_last4: String?
        let metadata: [String: String]
        let created_at: String?
        let submitted_at: String?
        let decided_at: String?
        let decision: String?
        let decision_reason: String?
        let expires_at: String?
        let redacted_at: String?
        let approvals_required: Int
        let approvals: [ActorView]
        /// Times a reviewer sent it back for steps again, and the workflow's cap.
        let resubmissions: Int
        let max_resubmissions: Int?
        let resubmission_reason: String?
        /// What the user was told (erased by redaction); the steps still to redo.
        let resubmission_message: String?
        let reopened_steps: [String]
        /// What a reviewer should know first (the detail's banner).
        let flags: [String]
    }

    struct ActorView: Encodable {
        let type: String
        let id: String?
        let email: String?
    }

    struct StepView: Encodable {
        let id: String
        let type: String
        let status: String
        let completed_at: String?
        var profile: [String: String]?
        var images: [ImageView]?
        var documents: [[String: String]]?
    }

    struct EventView: Encodable {
        let id: String
        let type: String
        let sequence: Int64
        let created_at: String?
        let actor: ActorView
        let data: [String: String]
    }

    struct NoteView: Encodable {
        let id: String
        let operator_id: String
        let operator_email: String?
        let body: String
        let created_at: String?
    }

    func detail(of verification: Verification, for op: Operator) throws -> Detail {
        let emails = Dictionary(uniqueKeysWithValues: try operators.list(accountID: op.accountID).map { ($0.id.rawValue, $0.email) })
        func actor(_ kind: String, _ id: String?) -> ActorView {
            ActorView(type: kind, id: id, email: kind == EventActor.Kind.operator.rawValue ? id.flatMap { emails[$0] } : nil)
        }
        let summaries = Dictionary(uniqueKeysWithValues: try artifacts.list(verificationID: verification.id).map { ($0.id, $0) })
        let steps = try verification.steps.map { state -> StepView in
            var view = StepView(id: state.id, type: state.type.rawValue, status: state.statusName,
                                completed_at: APIObjects.timestamp(state.completedAt))
            let live = state.artifacts.filter { summaries[$0].map { !$0.redacted } ?? false }
            switch state.type {
            case .profile:
                view.profile = try live.first.flatMap { try strings(of: $0, in: verification) }
            case .digilocker:
                view.documents = try live.compactMap { try strings(of: $0, in: verification) }
            case .selfie, .premisesPhotos, .document:
                view.images = images(of: state, in: verification, summaries: summaries)
            }
            return view
        }
        let timeline = try events.chain(verificationID: verification.id).map { event in
            EventView(id: event.id.rawValue, type: event.type, sequence: event.sequence, created_at: APIObjects.timestamp(event.createdAt),
                      actor: actor(event.actorKind, event.actorID), data: Self.flatten(event.data))
        }
        let notes = try notes.notes(verificationID: verification.id).map {
            NoteView(id: $0.id, operator_id: $0.operatorID, operator_email: emails[$0.operatorID], body: $0.body,
                     created_at: APIObjects.timestamp($0.createdAt))
        }
        let approvals = verification.approvals.map { reference -> ActorView in
            let parts = reference.split(separator: ":", maxSplits: 1).map(String.init)
            return actor(parts[0], parts.count > 1 ? parts[1] : nil)
        }
        let view = VerificationView(
            id: verification.id.rawValue, user_id: verification.redactedAt == nil ? verification.userID : nil,
            workflow: verification.workflowKey, workflow_version: verification.workflowVersion, status: verification.status.rawValue,
            mobile_last4: verification.mobileLast4, metadata: verification.metadata,
            created_at: APIObjects.timestamp(verification.createdAt), submitted_at: APIObjects.timestamp(verification.submittedAt),
            decided_at: APIObjects.timestamp(verification.decidedAt), decision: verification.decision,
            decision_reason: verification.decisionReason, expires_at: APIObjects.timestamp(verification.expiresAt),
            redacted_at: APIObjects.timestamp(verification.redactedAt), approvals_required: verification.approvalsRequired,
            approvals: approvals, resubmissions: verification.resubmissions,
            max_resubmissions: try workflows.workflow(accountID: op.accountID, key: verification.workflowKey,
                                                      version: verification.workflowVersion)?.review.maxResubmissions,
            resubmission_reason: verification.resubmissionReason, resubmission_message: verification.resubmissionMessage,
            reopened_steps: verification.reopenedStepIDs, flags: verification.flags.map(\.rawValue))
        let decides = op.role.decides
        return Detail(verification: view, steps: steps, events: timeline, notes: notes,
                      can_decide: decides && verification.status == .submitted && !verification.approvals.contains(op.actor.reference),
                      reasons: RejectionReason.allCases.map(\.rawValue),
                      can_resubmit: decides && verification.status == .submitted,
                      resubmission_reasons: ResubmissionReason.allCases.map(\.rawValue))
    }

    /// A JSON artifact's string members (the profile form, a DigiLocker document: already masked).
    private func strings(of artifactID: String, in verification: Verification) throws -> [String: String]? {
        guard let id = ObjectID(.artifact, parsing: artifactID),
              let (type, content) = try artifacts.content(id: id, verificationID: verification.id), type == "application/json",
              let object = try? JSONSerialization.jsonObject(with: Data(content)) as? [String: Any]
        else { return nil }
        return object.compactMapValues { $0 as? String }
    }

    /// An event's canonical data object as strings, for display.
    static func flatten(_ data: String) -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return [:] }
        return object.compactMapValues { value in
            switch value {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
    }

    // MARK: Images

    /// An image artifact of one of the account's verifications: the stored copy (`full`) or a
    /// display copy libvips makes from it now.
    func image(_ op: Operator, _ tenancy: Tenancy, verificationID: ObjectID, artifact: String, display: Bool) throws -> [UInt8] {
        guard try verifications.verification(tenancy: tenancy, id: verificationID) != nil,
              let artifactID = ObjectID(.artifact, parsing: artifact),
              let (contentType, content) = try artifacts.content(id: artifactID, verificationID: verificationID),
              contentType.hasPrefix("image/")
        else { throw DomainError.notFound(what: "artifact") }
        guard display else { return content }
        do {
            return try thumbnails.normalize(content).bytes
        } catch {
            throw DomainError.notFound(what: "artifact")
        }
    }
}
