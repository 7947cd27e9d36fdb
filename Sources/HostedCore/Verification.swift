import Foundation

/// Where a verification is in its life.
public enum VerificationStatus: String, Sendable, CaseIterable, Codable {
    case created
    case inProgress = "in_progress"
    case submitted
    case approved
    case rejected
    case canceled
    case expired

    /// Closed verifications accept no change; a new one may be created for the same user and workflow.
    public var isClosed: Bool { [.approved, .rejected, .canceled, .expired].contains(self) }
    /// Details (mobile, return URL, metadata) can change only before the user submits.
    public var isEditable: Bool { self == .created || self == .inProgress }
}

/// One step's progress within a verification.
public struct StepState: Equatable, Sendable, Codable {
    public let id: String
    public let type: StepType
    public var completedAt: Date?
    /// Ids of the artifacts captured for this step, in capture order.
    public var artifacts: [String]

    public init(id: String, type: StepType, completedAt: Date? = nil, artifacts: [String] = []) {
        self.id = id
        self.type = type
        self.completedAt = completedAt
        self.artifacts = artifacts
    }

    /// `pending` or `completed`, as the API and the journey page show it.
    public var statusName: String { completedAt == nil ? "pending" : "completed" }

    enum CodingKeys: String, CodingKey { case id, type, completedAt, artifacts }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decode(StepType.self, forKey: .type)
        completedAt = try container.decodeIfPresent(Date.self, forKey: .completedAt)
        // Rows written before steps had artifacts have none.
        artifacts = try container.decodeIfPresent([String].self, forKey: .artifacts) ?? []
    }
}

/// A verification of one of the customer's users through one workflow version.
public struct Verification: Equatable, Sendable {
    public let id: ObjectID
    public let accountID: ObjectID
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
    /// Events the status machine recorded and the store has not written yet (written in the
    /// transaction of the change, then cleared).
    public internal(set) var unwrittenEvents: [EventDraft] = []

    public init(id: ObjectID, accountID: ObjectID, userID: String, workflowKey: String, workflowVersion: Int,
                status: VerificationStatus, mobile: String, returnURL: String?, metadata: [String: String],
                steps: [StepState], createdAt: Date, updatedAt: Date, submittedAt: Date? = nil,
                decidedAt: Date? = nil, decisionReason: String? = nil, revision: Int64 = 1,
                expiresAt: Date? = nil, expiredReason: String? = nil, lastStep: String? = nil, redactedAt: Date? = nil,
                redactAfterSeconds: Int64? = nil, redactAt: Date? = nil, approvalsRequired: Int = 1, approvals: [String] = []) {
        self.id = id
        self.accountID = accountID
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

/// Rules for the fields a customer sends about a verification.
public enum VerificationRules {
    public static let maximumMetadataKeys = 20
    public static let maximumMetadataKeyLength = 40
    public static let maximumMetadataValueLength = 500

    public static let maximumUserIDLength = 255

    /// The customer's own id for the user, kept verbatim: 1–255 Unicode characters (code points,
    /// as JSON Schema's `maxLength` counts them), none of them a control character — so
    /// `auth0|5f7c…`, `google-oauth2|1234`, `a+b@x.in` and `ग्राहक-42` are all ids.
    public static func isValidUserID(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        var count = 0
        for scalar in scalars {
            count += 1
            if count > maximumUserIDLength || scalar.properties.generalCategory == .control { return false }
        }
        return count > 0
    }

    /// E.164: `+`, a non-zero digit, then 7 to 14 more digits.
    public static func isValidMobile(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 9, bytes.count <= 16, bytes[0] == 0x2B, bytes[1] >= 0x31, bytes[1] <= 0x39 else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Field errors for metadata, or none.
    public static func metadataErrors(_ metadata: [String: String], field: String = "metadata") -> [FieldError] {
        var errors: [FieldError] = []
        if metadata.count > maximumMetadataKeys {
            errors.append(FieldError(field: field, message: "must have at most \(maximumMetadataKeys) keys"))
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty || key.count > maximumMetadataKeyLength || key.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                errors.append(FieldError(field: "\(field).\(key)", message: "keys must be 1 to \(maximumMetadataKeyLength) printable characters"))
            }
            if value.count > maximumMetadataValueLength || value.unicodeScalars.contains(where: { $0.value == 0 }) {
                errors.append(FieldError(field: "\(field).\(key)", message: "values must be at most \(maximumMetadataValueLength) characters"))
            }
        }
        return errors
    }
}
