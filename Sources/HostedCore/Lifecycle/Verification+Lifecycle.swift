import Foundation

// The status machine: the one place a verification's status changes (see `VerificationEvent`).
extension VerificationStatus {
    /// Open verifications can still be worked on or decided.
    public var isOpen: Bool { !isClosed }
}

extension Verification {
    /// Applies `event` at `time`, by `actor`. Repeating an event the verification has already had
    /// (a second submit, canceling a canceled one, redacting a redacted one) changes nothing and
    /// records nothing; an event its state does not allow is a typed conflict.
    public mutating func apply(_ event: VerificationEvent, at time: Date, by actor: EventActor) throws(DomainError) {
        let before = status
        switch event {
        case .created:
            record(.created, actor, ["status": .string(status.rawValue)])
        case .updated(let fields):
            guard status.isEditable else { throw Self.closed(status, action: "changed") }
            record(.updated, actor, ["fields": .string(fields.sorted().joined(separator: ","))])
        case .handoffCreated:
            guard status.isOpen else { throw Self.closed(status, action: "handed off") }
            record(.handoffCreated, actor)
        case .signedIn(let method):
            guard status.isOpen else { throw Self.closed(status, action: "signed in to") }
            if status == .created { status = .inProgress }
            record(.signedIn, actor, ["method": .string(method.rawValue)])
        case .stepCompleted(let stepID):
            guard status.isEditable else { throw Self.closed(status, action: "changed") }
            guard let index = steps.firstIndex(where: { $0.id == stepID }) else {
                throw .notFound(what: "step")
            }
            steps[index].completedAt = time
            record(.stepCompleted, actor, ["step": .string(stepID)])
        case .submitted:
            if status == .submitted { return }
            guard status.isEditable else { throw Self.closed(status, action: "submitted") }
            guard steps.allSatisfy({ $0.completedAt != nil }) else {
                throw .conflict(detail: "Complete every step before submitting.", code: .stepsIncomplete)
            }
            status = .submitted
            submittedAt = time
            record(.submitted, actor, ["status": .string(status.rawValue)])
        case .decided(let approved, let reason):
            guard status == .submitted else {
                throw .conflict(detail: "Only a submitted verification can be decided; this one is \(status.rawValue).",
                                code: .verificationNotSubmitted)
            }
            if approved {
                // Four eyes: nobody's approval counts twice (an account's API keys are one
                // reviewer), and each one short of the requirement is recorded without deciding.
                guard !approvals.contains(where: { EventActor.reviewer(ofReference: $0) == actor.reviewer }) else {
                    let who = actor.kind == .apiKey ? "An API key of this account has" : "You have"
                    throw .conflict(detail: "\(who) already approved this verification; another reviewer must approve it too.",
                                    code: .approvalAlreadyRecorded)
                }
                if approvals.count + 1 < approvalsRequired {
                    approvals.append(actor.reference)
                    record(.reviewNote, actor, ["kind": .string("approval"), "approvals": .integer(Int64(approvals.count)),
                                                "approvals_required": .integer(Int64(approvalsRequired))])
                    return
                }
            }
            status = approved ? .approved : .rejected
            decisionReason = reason
            decidedAt = time
            var data: [String: EventValue] = ["status": .string(status.rawValue)]
            // The reason is free text the customer wrote, which may hold personal data: the event
            // keeps it only when it is a reason code (`document_blurry`), never prose.
            if !approved { data["reason"] = reason.flatMap(Self.reasonCode).map(EventValue.string) ?? .null }
            record(approved ? .approved : .rejected, actor, data)
        case .reviewed(let action):
            // A note is personal data about the user: none is added once that data is erased.
            if action == .note, redactedAt != nil {
                throw .conflict(detail: "This verification was redacted; notes can no longer be added.", code: .verificationClosed)
            }
            // Changes nothing about the verification: the event is the record.
            record(.reviewNote, actor, ["kind": .string(action.rawValue)])
        case .continuationCreated, .continuationMatched, .continuationFailed:
            guard status.isEditable else { throw Self.closed(status, action: "continued") }
            let type: EventType = switch event {
            case .continuationCreated: .continuationCreated
            case .continuationMatched: .continuationMatched
            default: .continuationFailed
            }
            record(type, actor, type == .continuationFailed ? ["reason": .string("wrong_number")] : [:])
        case .continuationReported(let cancel):
            guard status.isEditable else { throw Self.closed(status, action: "continued") }
            if !flags.contains(.continuationReported) { flags.append(.continuationReported) }
            record(.continuationReported, actor, ["on_report": .string(cancel ? "cancel" : "flag")])
            if cancel {
                status = .canceled
                record(.canceled, actor, ["status": .string(status.rawValue), "reason": .string("continuation_reported")])
            }
        case .continuationRequested(let continuationID):
            guard status.isEditable else { throw Self.closed(status, action: "continued") }
            // Never the number or a secret: the customer's backend only needs to know which link.
            record(.continuationRequested, actor, ["continuation_id": .string(continuationID)])
        case .resubmissionRequested(let stepIDs, let reason, let message, let expiry, let limit):
            guard status == .submitted else {
                throw .conflict(detail: "Only a submitted verification can be sent back for steps again; this one is \(status.rawValue).",
                                code: .verificationNotSubmitted)
            }
            guard resubmissions < limit else {
                throw .conflict(detail: "This verification was already sent back \(resubmissions) time(s), the most its workflow allows.",
                                code: .resubmissionLimitReached)
            }
            let unknown = stepIDs.filter { id in !steps.contains { $0.id == id } }
            guard !stepIDs.isEmpty, unknown.isEmpty, Set(stepIDs).count == stepIDs.count else {
                throw .invalidRequest(detail: "Name one or more steps of this verification, each once.",
                                      errors: [FieldError(field: "steps", message: unknown.isEmpty
                                          ? "must list distinct steps of the verification" : "has no step \(unknown[0])")])
            }
            for index in steps.indices where stepIDs.contains(steps[index].id) {
                steps[index].completedAt = nil
                steps[index].artifacts = []
                for capture in steps[index].captures.indices { steps[index].captures[capture].superseded = true }
            }
            status = .resubmissionRequested
            // An approval was given to the photos now superseded: four eyes start over on the retake.
            approvals = []
            resubmissions += 1
            resubmissionReason = reason.rawValue
            resubmissionMessage = message
            expiresAt = expiry
            // The message is the reviewer's prose about the person: never in the event.
            record(.resubmissionRequested, actor, ["status": .string(status.rawValue), "steps": .strings(stepIDs),
                                                   "reason": .string(reason.rawValue)])
        case .evidenceExported(let manifestSHA256):
            record(.evidenceExported, actor, ["manifest_sha256": .string(manifestSHA256)])
        case .canceled:
            if status == .canceled { return }
            guard status.isOpen else { throw Self.closed(status, action: "canceled") }
            status = .canceled
            record(.canceled, actor, ["status": .string(status.rawValue)])
        case .expired:
            if status == .expired { return }
            guard status.isEditable else { throw Self.closed(status, action: "expired") }
            let reason = status == .created ? "not_started" : "abandoned"
            status = .expired
            expiredReason = reason
            lastStep = reason == "abandoned" ? lastCompletedStep : nil
            record(.expired, actor, ["status": .string(status.rawValue), "reason": .string(reason),
                                     "last_step": lastStep.map(EventValue.string) ?? .null])
        case .redacted:
            if redactedAt != nil { return }
            guard status.isClosed else {
                throw .conflict(detail: "Only an approved, rejected, canceled or expired verification can be redacted; this one is \(status.rawValue).",
                                code: .verificationNotTerminal)
            }
            // Not empty: the open-verification index covers approved and rejected rows, and two
            // redacted ones of one workflow must not collide. A control character keeps it apart
            // from every valid user id (which has none); the API shows null.
            userID = Self.redactedUserIDPrefix + id.rawValue
            mobile = ""
            metadata = [:]
            decisionReason = nil
            resubmissionMessage = nil
            // Where the premises photos were taken says where the person lives or works.
            for step in steps.indices {
                for capture in steps[step].captures.indices { steps[step].captures[capture].location = nil }
            }
            redactedAt = time
            redactAt = nil
            record(.redacted, actor)
        }
        if status.isClosed && before.isOpen, let redactAfterSeconds {
            redactAt = time.addingTimeInterval(TimeInterval(redactAfterSeconds))
        }
    }

    /// The lifecycle's own move, made before anything else happens to a verification at `time`
    /// (every change and every read of the store goes through it): past its time, a verification
    /// that is still being worked on is expired, by the system.
    public mutating func settle(at time: Date) throws(DomainError) {
        if isDueToExpire(at: time) { try apply(.expired, at: time, by: .system) }
    }

    /// Whether reads must show it expired at `time`: open, not yet submitted, past `expiresAt`.
    public func isDueToExpire(at time: Date) -> Bool {
        status.isEditable && expiresAt <= time
    }

    /// What a redacted verification's `user_id` column holds instead of the user's id.
    public static let redactedUserIDPrefix = "\u{1}redacted:"

    /// `reason` if it is a reason code: 1 to 64 characters of a-z, 0-9 and _.
    static func reasonCode(_ reason: String) -> String? {
        let bytes = reason.utf8
        guard (1...64).contains(bytes.count),
              bytes.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
        else { return nil }
        return reason
    }

    /// The id of the step completed last, or nil.
    var lastCompletedStep: String? {
        steps.filter { $0.completedAt != nil }.max { $0.completedAt! < $1.completedAt! }?.id
    }

    /// The decision the API shows: the status once decided, else nil.
    public var decision: String? {
        status == .approved || status == .rejected ? status.rawValue : nil
    }

    /// Whether going from `before` to this state ends the journey (its handoffs and sessions stop).
    public func closesJourney(from before: Verification) -> Bool {
        status.isClosed && before.status.isOpen
    }

    private mutating func record(_ type: EventType, _ actor: EventActor, _ data: [String: EventValue] = [:]) {
        unwrittenEvents.append(EventDraft(type, actor: actor, data: data))
    }

    static func closed(_ status: VerificationStatus, action: String) -> DomainError {
        .conflict(detail: "The verification is \(status.rawValue) and can no longer be \(action).", code: .verificationClosed)
    }
}
