import Foundation
import HostedCore
import HostedStorage

/// A photo step's evidence in the console: every photo the user took for it, in upload order,
/// with what the capture checks found (reasons, scores, the face box in stored-image pixels), where
/// it was taken when the step asked, and whether a retake replaced it. Superseded photos stay
/// until redaction so a reviewer sees each one beside the retake that followed it.
extension ConsoleReview {
    struct ImageView: Encodable {
        let artifact_id: String
        let content_type: String?
        let captured_at: String?
        let display_url: String
        let full_url: String
        /// The stored photo's size in pixels: the face box is in these, so the page scales it.
        let width: Int?
        let height: Int?
        let superseded: Bool
        let quality: QualityView?
        let location: LocationView?
    }

    struct QualityView: Encodable {
        let passed: Bool
        let reasons: [String]
        let scores: Scores
        let attempt: Int
        let face: Face?
        let accepted_by_user: Bool

        struct Scores: Encodable {
            /// Nil only for a measure that is not a finite number (JSON has none to write).
            let brightness: Double?
            let sharpness: Double?
            let faces: Int
        }

        struct Face: Encodable {
            let x: Int
            let y: Int
            let width: Int
            let height: Int
        }

        init(_ quality: CaptureQuality) {
            passed = quality.passed
            reasons = quality.reasons.map(\.rawValue)
            scores = Scores(brightness: Self.rounded(quality.brightness), sharpness: Self.rounded(quality.sharpness),
                            faces: quality.faces)
            attempt = quality.attempt
            face = quality.face.map { Face(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
            accepted_by_user = quality.acceptedByUser
        }

        /// Four decimals, as the API writes them.
        static func rounded(_ value: Double) -> Double? {
            value.isFinite ? (value * 10_000).rounded() / 10_000 : nil
        }
    }

    struct LocationView: Encodable {
        let latitude: Double
        let longitude: Double
        let accuracy_m: Double
    }

    /// The step's photos that are still stored (not erased by redaction): its captures in upload
    /// order, then any photo kept before captures were recorded.
    func images(of state: StepState, in verification: Verification, summaries: [String: ArtifactStore.Summary]) -> [ImageView] {
        let base = "/console/api/verifications/\(verification.id.rawValue)/artifacts/"
        let stored = { (id: String) in summaries[id].map { !$0.redacted && $0.contentType.hasPrefix("image/") } ?? false }
        let captured = state.captures.filter { stored($0.id) }.map { capture in
            ImageView(artifact_id: capture.id, content_type: capture.contentType, captured_at: APIObjects.timestamp(capture.capturedAt),
                      display_url: base + capture.id + "?size=display", full_url: base + capture.id + "?size=full",
                      width: capture.width, height: capture.height, superseded: capture.superseded,
                      quality: capture.quality.map(QualityView.init),
                      location: capture.location.map { LocationView(latitude: $0.latitude, longitude: $0.longitude, accuracy_m: $0.accuracyM) })
        }
        let known = Set(state.captures.map(\.id))
        let older = state.artifacts.filter { !known.contains($0) && stored($0) }.map { id in
            ImageView(artifact_id: id, content_type: summaries[id]?.contentType, captured_at: APIObjects.timestamp(summaries[id]?.createdAt),
                      display_url: base + id + "?size=display", full_url: base + id + "?size=full",
                      width: nil, height: nil, superseded: false, quality: nil, location: nil)
        }
        return captured + older
    }
}
