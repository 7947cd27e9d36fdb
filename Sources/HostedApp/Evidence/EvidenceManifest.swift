import Foundation
import HostedCore

/// `manifest.json` of an evidence bundle (docs/evidence.md): the verification as the API shows
/// it, its whole event chain as the events API shows it, the chain's head, what is known of each
/// artifact, the decisions and when the bundle was made. Members sorted, no spaces; the detached
/// JWS covers these exact bytes.
struct EvidenceManifest {
    /// One artifact as the manifest lists it: its bytes are in the bundle at `path` unless the
    /// verification was redacted (then `path` is null and only the hash and size remain).
    struct Artifact {
        let id: String
        let step: String
        let contentType: String
        /// Lowercase hex; nil only when the bytes were erased before any hash was kept.
        let sha256: String?
        let bytes: Int?
        let capturedAt: Date
        /// What the capture checks found, where it was taken, and whether a retake replaced it:
        /// the step's `Capture`, nil for what is not a photo (a profile form, a document).
        let capture: Capture?
        let superseded: Bool
        let path: String?
    }

    let verificationJSON: [UInt8]
    let events: [Event]
    let artifacts: [Artifact]
    let generatedAt: Date

    /// The file name inside the bundle of an artifact with this content type.
    static func path(of id: String, contentType: String) -> String {
        "artifacts/\(id).\(["image/jpeg": "jpg", "image/png": "png", "application/json": "json"][contentType] ?? "bin")"
    }

    func bytes() -> [UInt8] {
        var o = JSONText.Object()
        o.raw("artifacts", JSONText.array(artifacts.map(Self.json)))
        o.string("chain_head", events.last?.hash)
        o.raw("decisions", JSONText.array(Self.decisions(in: events)))
        o.raw("events", JSONText.array(events.map(\.json)))
        o.timestamp("generated_at", generatedAt)
        o.string("object", "evidence_manifest")
        o.raw("verification", bytes: verificationJSON)
        return o.finish()
    }

    private static func json(_ artifact: Artifact) -> String {
        var o = JSONText.Object()
        if let bytes = artifact.bytes { o.int("bytes", bytes) } else { o.raw("bytes", "null") }
        o.timestamp("captured_at", artifact.capturedAt)
        o.string("content_type", artifact.contentType)
        o.string("id", artifact.id)
        // The same writers as the API's capture object, so the numbers read the same everywhere.
        if let location = artifact.capture?.location { o.object("location") { APIObjects.write(location, to: &$0) } }
        o.string("path", artifact.path)
        if let quality = artifact.capture?.quality { o.object("quality") { APIObjects.write(quality, to: &$0) } } else { o.raw("quality", "null") }
        o.string("sha256", artifact.sha256)
        o.string("step", artifact.step)
        o.bool("superseded", artifact.superseded)
        return String(decoding: o.finish(), as: UTF8.self)
    }

    /// Every decision in the chain, oldest first: approvals and rejections (an approval four eyes
    /// counted without deciding too) and requests for steps again, each with who, when and the
    /// reason code the event keeps (never the reviewer's prose).
    static func decisions(in events: [Event]) -> [String] {
        events.compactMap { event -> String? in
            let data = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any] ?? [:]
            let decision: String
            switch event.type {
            case EventType.approved.rawValue: decision = "approved"
            case EventType.rejected.rawValue: decision = "rejected"
            case EventType.resubmissionRequested.rawValue: decision = "resubmission_requested"
            case EventType.reviewNote.rawValue where data["kind"] as? String == "approval": decision = "approval"
            default: return nil
            }
            var o = JSONText.Object()
            o.object("actor") { actor in
                actor.string("id", event.actorID)
                actor.string("type", event.actorKind)
            }
            o.string("decision", decision)
            o.string("event_id", event.id.rawValue)
            o.string("reason", data["reason"] as? String)
            o.string("time", RFC3339.format(event.createdAt, milliseconds: true))
            return String(decoding: o.finish(), as: UTF8.self)
        }
    }
}
