import Foundation

/// A verification of one of the customer's users through one workflow version.
public struct Verification: Equatable, Sendable {
    public let id: ObjectID
    public let accountID: ObjectID
    /// False for a verification made with a test key (`sk_test_…`): it is seen only by keys and
    /// console views of its own mode (docs/test-mode.md).
    public let livemode: Bool
    /// Empty once redacted (the API shows null).
    public internal(set) var userID: String
    public let workflowKey: String
    public let workflowVersion: Int
    /// Changed only through `apply(_:at:)` (VerificationLifecycle.swift).
    public internal(set) var status: VerificationStatus
    /// E.164; never returned through the API, only its last four digits.
    public var mobile: String
    public var returnURL: String?
    public var metadata: [String: String]
    public var steps: [StepState]
    public let createdAt: Date
    public var updatedAt: Date
    public internal(set) var submittedAt: Date?
    public internal(set) var decidedAt: Date?
    /// Why it was approved or rejected, as the customer wrote it.
    public internal(set) var decisionReason: String?
    /// Bumped by every change: the basis of the ETag.
    public var revision: Int64
    /// Past this, a verification not yet submitted is expired (on read and by the sweeper).
    public internal(set) var expiresAt: Date
    /// `not_started` or `abandoned`, once expired.
    public internal(set) var expiredReason: String?
    /// The id of the last completed step when it expired as abandoned.
    public internal(set) var lastStep: String?
    /// When its personal data was erased.
    public internal(set) var redactedAt: Date?
    /// The workflow's retention, pinned at creation: redacted this long after a terminal state.
    public let redactAfterSeconds: Int64?
    /// When the retention sweep redacts it (set on reaching a terminal state with a retention).
    public internal(set) var redactAt: Date?
    /// Approvals a decision needs (the workflow's `review`, pinned at creation): 1, or 2 for four eyes.
    public let approvalsRequired: Int
    /// Who has approved so far without deciding (`EventActor.reference`), in order.
    public internal(set) var approvals: [String]
    /// How many times a reviewer asked for steps again.
    public internal(set) var resubmissions: Int
    /// The latest request's reason code, and its message to the user (personal data: erased by
    /// redaction, never in an event).
    public internal(set) var resubmissionReason: String?
    public internal(set) var resubmissionMessage: String?
    /// What a reviewer should know before looking (`continuation_reported`), each at most once.
    public internal(set) var flags: [VerificationFlag]
    /// Events the status machine recorded and the store has not written yet (written in the
    /// transaction of the change, then cleared).
    public internal(set) var unwrittenEvents: [EventDraft] = []

    public init(id: ObjectID, accountID: ObjectID, userID: String, workflowKey: String, workflowVersion: Int,
                status: VerificationStatus, mobile: String, returnURL: String?, metadata: [String: String],
                steps: [StepState], createdAt: Date, updatedAt: Date, submittedAt: Date? = nil,
                decidedAt: Date? = nil, decisionReason: String? = nil, revision: Int64 = 1,
                expiresAt: Date? = nil, expiredReason: String? = nil, lastStep: String? = nil, redactedAt: Date? = nil,
                redactAfterSeconds: Int64? = nil, redactAt: Date? = nil, approvalsRequired: Int = 1, approvals: [String] = [],
                resubmissions: Int = 0, resubmissionReason: String? = nil, resubmissionMessage: String? = nil,
                flags: [VerificationFlag] = [], livemode: Bool = true) {
        self.id = id
        self.accountID = accountID
        self.livemode = livemode
        self.userID = userID
        self.workflowKey = workflowKey
        self.workflowVersion = workflowVersion
        self.status = status
        self.mobile = mobile
        self.returnURL = returnURL
        self.metadata = metadata
        self.steps = steps
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.submittedAt = submittedAt
        self.decidedAt = decidedAt
        self.decisionReason = decisionReason
        self.revision = revision
        self.expiresAt = expiresAt ?? createdAt.addingTimeInterval(TimeInterval(WorkflowLifecycle.defaultExpiresAfterSeconds))
        self.expiredReason = expiredReason
        self.lastStep = lastStep
        self.redactedAt = redactedAt
        self.redactAfterSeconds = redactAfterSeconds
        self.redactAt = redactAt
        self.approvalsRequired = approvalsRequired
        self.approvals = approvals
        self.resubmissions = resubmissions
        self.resubmissionReason = resubmissionReason
        self.resubmissionMessage = resubmissionMessage
        self.flags = flags
    }

    /// Nil once redacted.
    public var mobileLast4: String? { redactedAt == nil ? String(mobile.suffix(4)) : nil }

    /// This verification without the events waiting to be written: what its stored row holds.
    public var stored: Verification {
        var copy = self
        copy.unwrittenEvents = []
        return copy
    }

    /// Hands over the events waiting to be written.
    public mutating func takeUnwrittenEvents() -> [EventDraft] {
        defer { unwrittenEvents = [] }
        return unwrittenEvents
    }

    /// A strong validator that changes whenever the verification does.
    public var etag: String { "\"\(id.rawValue.suffix(8))-\(revision)\"" }
}
