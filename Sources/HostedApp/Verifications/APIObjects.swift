import Foundation
import HostedCore

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

    /// The verification object, written straight from the domain value into one buffer by one
    /// fast writer for every response that holds one (polling is the hot path). Keys are
    /// sorted; the tests check the bytes against an Encodable oracle of the documented shape.
    struct VerificationJSON: Sendable {
        /// `<public URL>/j/`: the journey URL without the verification's id, built once.
        let journeyPrefix: String

        init(publicURL: URL) {
            journeyPrefix = publicURL.absoluteString + "/j/"
        }

        func bytes(_ v: Verification) -> [UInt8] {
            var o = JSONText.Object()
            write(v, to: &o)
            return o.finish()
        }

        /// Writes the verification's members into `o` (an object of its own, or an element of a
        /// list's `data`).
        func write(_ v: Verification, to o: inout JSONText.Object) {
            o.timestamp("created_at", v.createdAt)
            o.timestamp("decided_at", v.decidedAt)
            o.string("decision", v.decision)
            o.string("decision_reason", v.decisionReason)
            o.string("expired_reason", v.expiredReason)
            o.timestamp("expires_at", v.expiresAt)
            o.string("id", v.id.rawValue)
            o.joined("journey_url", journeyPrefix, v.id.rawValue)
            o.string("last_step", v.lastStep)
            o.stringMap("metadata", v.metadata)
            o.string("mobile_last4", v.mobileLast4)
            o.string("object", "verification")
            o.timestamp("redacted_at", v.redactedAt)
            o.string("return_url", v.returnURL)
            o.string("status", v.status.rawValue)
            o.objects("steps", v.steps) { s, step in
                s.strings("artifacts", step.artifacts)
                s.timestamp("completed_at", step.completedAt)
                s.string("id", step.id)
                s.string("status", step.statusName)
                s.string("type", step.type.rawValue)
            }
            o.timestamp("submitted_at", v.submittedAt)
            o.timestamp("updated_at", v.updatedAt)
            // A redacted verification keeps no user id.
            o.string("user_id", v.redactedAt == nil ? v.userID : nil)
            o.string("workflow", v.workflowKey)
            o.int("workflow_version", v.workflowVersion)
        }
    }
}
