import Foundation
import HostedCore
import HostedHTTP

/// The JSON shapes of the customer API, exactly as documented in `public/openapi.yaml`.
enum APIObjects {
    /// RFC 3339 in UTC to the second, e.g. `2026-11-29T12:14:51Z`.
    static func timestamp(_ date: Date?) -> String? {
        date.map { RFC3339.format($0) }
    }

    struct ListBody<Item: Encodable>: Encodable {
        let object = "list"
        let url: String
        let has_more: Bool
        let data: [Item]
    }

    struct WorkflowBody: Encodable {
        let object = "workflow"
        let key: String
        let name: String
        let version: Int
        let steps: [WorkflowStep]
        let created_at: String?
        let expires_after_seconds: Int64
        let retention: Retention?
        let review: Review

        struct Retention: Encodable {
            let redact_after_seconds: Int64
        }

        struct Review: Encodable {
            let approvals_required: Int
        }

        init(_ workflow: Workflow) {
            key = workflow.key
            name = workflow.name
            version = workflow.version
            steps = workflow.steps
            created_at = timestamp(workflow.createdAt)
            expires_after_seconds = workflow.lifecycle.expiresAfterSeconds
            retention = workflow.lifecycle.redactAfterSeconds.map(Retention.init)
            review = Review(approvals_required: workflow.review.approvalsRequired)
        }
    }

    struct ReturnURLBody: Encodable {
        let object = "return_url"
        let id: String
        let url: String
        let created_at: String?
    }

    struct DeletedBody: Encodable {
        let object: String
        let id: String
        let deleted = true
    }

    struct StepBody {
        let id: String
        let type: String
        let status: String
        let completed_at: String?
        let artifacts: [String]
    }

    /// The verification object, written by one fast writer (`json`) for every response that
    /// holds one; the Encodable form lives in the tests as the oracle of the documented shape.
    struct VerificationBody {
        let object = "verification"
        let id: String
        let user_id: String?
        let workflow: String
        let workflow_version: Int
        let status: String
        let journey_url: String
        let return_url: String?
        let mobile_last4: String?
        let steps: [StepBody]
        let metadata: [String: String]
        let created_at: String?
        let updated_at: String?
        let submitted_at: String?
        let decided_at: String?
        let decision: String?
        let decision_reason: String?
        let expires_at: String?
        let expired_reason: String?
        let last_step: String?
        let redacted_at: String?

        init(_ v: Verification, publicURL: URL) {
            id = v.id.rawValue
            user_id = v.redactedAt == nil ? v.userID : nil
            workflow = v.workflowKey
            workflow_version = v.workflowVersion
            status = v.status.rawValue
            journey_url = publicURL.absoluteString + "/j/" + v.id.rawValue
            return_url = v.returnURL
            mobile_last4 = v.mobileLast4
            steps = v.steps.map {
                StepBody(id: $0.id, type: $0.type.rawValue, status: $0.statusName,
                         completed_at: timestamp($0.completedAt), artifacts: $0.artifacts)
            }
            metadata = v.metadata
            created_at = timestamp(v.createdAt)
            updated_at = timestamp(v.updatedAt)
            submitted_at = timestamp(v.submittedAt)
            decided_at = timestamp(v.decidedAt)
            decision = v.decision
            decision_reason = v.decisionReason
            expires_at = timestamp(v.expiresAt)
            expired_reason = v.expiredReason
            last_step = v.lastStep
            redacted_at = timestamp(v.redactedAt)
        }

        /// The object as JSON with sorted keys, written by hand: this is the hot path of polling,
        /// and a test checks it against the Encodable oracle byte for byte.
        var json: String { String(decoding: utf8, as: UTF8.self) }

        var utf8: [UInt8] {
            var o = JSONText.Object()
            o.string("created_at", created_at)
            o.string("decided_at", decided_at)
            o.string("decision", decision)
            o.string("decision_reason", decision_reason)
            o.string("expired_reason", expired_reason)
            o.string("expires_at", expires_at)
            o.string("id", id)
            o.string("journey_url", journey_url)
            o.string("last_step", last_step)
            o.raw("metadata", JSONText.stringMap(metadata))
            o.string("mobile_last4", mobile_last4)
            o.string("object", object)
            o.string("redacted_at", redacted_at)
            o.string("return_url", return_url)
            o.string("status", status)
            var stepList: [UInt8] = [UInt8(ascii: "[")]
            for (index, step) in steps.enumerated() {
                if index > 0 { stepList.append(UInt8(ascii: ",")) }
                var s = JSONText.Object()
                var artifacts: [UInt8] = [UInt8(ascii: "[")]
                for (position, artifact) in step.artifacts.enumerated() {
                    if position > 0 { artifacts.append(UInt8(ascii: ",")) }
                    JSONText.appendString(artifact, to: &artifacts)
                }
                artifacts.append(UInt8(ascii: "]"))
                s.raw("artifacts", bytes: artifacts)
                s.string("completed_at", step.completed_at)
                s.string("id", step.id)
                s.string("status", step.status)
                s.string("type", step.type)
                stepList.append(contentsOf: s.finish())
            }
            stepList.append(UInt8(ascii: "]"))
            o.raw("steps", bytes: stepList)
            o.string("submitted_at", submitted_at)
            o.string("updated_at", updated_at)
            o.string("user_id", user_id)
            o.string("workflow", workflow)
            o.int("workflow_version", workflow_version)
            return o.finish()
        }
    }
}
