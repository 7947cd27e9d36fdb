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
        let continuation: Continuation

        struct Continuation: Encodable {
            let matching: String
            let on_report: String
        }

        struct Retention: Encodable {
            let redact_after_seconds: Int64
        }

        struct Review: Encodable {
            let approvals_required: Int
            let max_resubmissions: Int
        }

        init(_ workflow: Workflow) {
            key = workflow.key
            name = workflow.name
            version = workflow.version
            steps = workflow.steps
            created_at = timestamp(workflow.createdAt)
            expires_after_seconds = workflow.lifecycle.expiresAfterSeconds
            retention = workflow.lifecycle.redactAfterSeconds.map(Retention.init)
            review = Review(approvals_required: workflow.review.approvalsRequired, max_resubmissions: workflow.review.maxResubmissions)
            continuation = Continuation(matching: workflow.continuation.matching.rawValue, on_report: workflow.continuation.onReport.rawValue)
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
            o.strings("flags", v.flags.map(\.rawValue))
            o.string("id", v.id.rawValue)
            o.joined("journey_url", journeyPrefix, v.id.rawValue)
            o.string("last_step", v.lastStep)
            o.bool("livemode", v.livemode)
            o.stringMap("metadata", v.metadata)
            o.string("mobile_last4", v.mobileLast4)
            o.string("object", "verification")
            o.timestamp("redacted_at", v.redactedAt)
            o.int("resubmissions", v.resubmissions)
            o.string("return_url", v.returnURL)
            o.string("status", v.status.rawValue)
            o.objects("steps", v.steps) { s, step in
                s.strings("artifacts", step.artifacts)
                s.objects("captures", step.captures) { c, capture in APIObjects.write(capture, to: &c) }
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

    /// A capture as the API shows it (members sorted).
    static func write(_ capture: Capture, to o: inout JSONText.Object) {
        o.timestamp("captured_at", capture.capturedAt)
        o.string("content_type", capture.contentType)
        if let height = capture.height { o.int("height", height) }
        o.string("id", capture.id)
        if let location = capture.location { o.object("location") { write(location, to: &$0) } }
        if let quality = capture.quality { o.object("quality") { write(quality, to: &$0) } } else { o.raw("quality", "null") }
        o.bool("superseded", capture.superseded)
        if let width = capture.width { o.int("width", width) }
    }

    /// Where a photo was taken, as the API and the evidence bundle show it (members sorted, six decimals).
    static func write(_ location: CaptureLocation, to o: inout JSONText.Object) {
        o.number("accuracy_m", location.accuracyM)
        o.number("latitude", location.latitude, decimals: 6)
        o.number("longitude", location.longitude, decimals: 6)
    }

    /// The capture checks' verdict, as the upload answers it and the API shows it (members sorted).
    static func write(_ quality: CaptureQuality, to o: inout JSONText.Object) {
        o.bool("accepted_by_user", quality.acceptedByUser)
        o.int("attempt", quality.attempt)
        if let face = quality.face {
            o.object("face") { f in
                f.int("height", face.height)
                f.int("width", face.width)
                f.int("x", face.x)
                f.int("y", face.y)
            }
        }
        o.bool("passed", quality.passed)
        o.strings("reasons", quality.reasons.map(\.rawValue))
        o.object("scores") { s in
            s.number("brightness", quality.brightness)
            s.int("faces", quality.faces)
            s.number("sharpness", quality.sharpness)
        }
    }
}
