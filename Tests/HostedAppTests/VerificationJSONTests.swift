import Foundation
@testable import HostedApp
@testable import HostedCore
import HostedCrypto
import HostedHTTP
import Testing

/// The hand-written verification JSON (the polling hot path) is byte for byte what an Encodable
/// form of the documented shape gives, so the shape has one definition in effect.
@Suite struct VerificationJSONTests {
    static let publicURL = URL(string: "https://verify.example.com")!

    static func sample(returnURL: String?, metadata: [String: String], completed: Bool) -> Verification {
        let random = SecureRandom()
        let now = Date(unixMilliseconds: 1_795_000_000_000)
        return Verification(
            id: ObjectID(.verification, using: random), accountID: ObjectID(.account, using: random), userID: "user:42@acme.example",
            workflowKey: "kyc_basic", workflowVersion: 3, status: .inProgress, mobile: "+919876543210", returnURL: returnURL,
            metadata: metadata, steps: [StepState(id: "selfie", type: .selfie, completedAt: completed ? now : nil),
                                        StepState(id: "shop", type: .premisesPhotos)],
            createdAt: now, updatedAt: now.addingTimeInterval(61), submittedAt: nil, decidedAt: nil, revision: 4)
    }

    /// Every member set: decided, expiring, redacted (no user id, no mobile digits), artifacts.
    static func decidedAndRedacted() -> Verification {
        var v = sample(returnURL: "https://app.example.com/done", metadata: [:], completed: true)
        let at = Date(unixMilliseconds: 1_795_000_123_999)
        v.steps[0].artifacts = ["art_1", "art_\"2\""]
        v.steps[0].captures = [
            Capture(id: "art_0", contentType: "image/jpeg", capturedAt: at.addingTimeInterval(-5),
                    quality: CaptureQuality(reasons: [.tooDark, .noFace], brightness: 0.0812, sharpness: 3.25, faces: 0, face: nil,
                                            attempt: 1),
                    superseded: true, hash: 42),
            Capture(id: "art_1", contentType: "image/jpeg", capturedAt: at.addingTimeInterval(-1),
                    quality: CaptureQuality(reasons: [], brightness: 0.4312, sharpness: 123.5, faces: 1,
                                            face: FaceBox(x: 310, y: 220, width: 480, height: 480, score: 1.52), attempt: 2,
                                            acceptedByUser: false)),
            Capture(id: "art_\"2\"", contentType: "image/png", capturedAt: at, quality: nil),
        ]
        v.steps[0].attempts = 3
        v.submittedAt = at
        v.decidedAt = at.addingTimeInterval(1)
        v.status = .approved
        v.decisionReason = "looks right\n(line two)"
        v.expiresAt = at.addingTimeInterval(86_400 * 400)
        v.expiredReason = "never"
        v.lastStep = "shop"
        v.redactedAt = at.addingTimeInterval(2)
        return v
    }

    @Test(arguments: [
        sample(returnURL: nil, metadata: [:], completed: false),
        sample(returnURL: "https://app.example.com/kyc/done?x=1&y=/z",
               metadata: ["order": "42", "note": "quote \" backslash \\ slash / नमस्ते", "ctl": "\u{1}"], completed: true),
        decidedAndRedacted(),
    ])
    func handWrittenJSONEqualsTheEncoder(_ verification: Verification) throws {
        let written = APIObjects.VerificationJSON(publicURL: Self.publicURL).bytes(verification)
        let encoded = try JSONCoding.encoder.encode(DocumentedVerification(verification, publicURL: Self.publicURL))
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }

    /// In a list, each element is the same object.
    @Test func aListHoldsTheSameObjects() throws {
        let page = [Self.sample(returnURL: nil, metadata: ["a": "b"], completed: false), Self.decidedAndRedacted()]
        let writer = APIObjects.VerificationJSON(publicURL: Self.publicURL)
        var list = JSONText.Object()
        list.objects("data", page) { object, verification in writer.write(verification, to: &object) }
        let expected = "{\"data\":[" + page.map { String(decoding: writer.bytes($0), as: UTF8.self) }.joined(separator: ",") + "]}"
        #expect(String(decoding: list.finish(), as: UTF8.self) == expected)
    }
}

/// The documented shape (public/openapi.yaml) as an Encodable form, built from the domain value
/// on its own: the oracle the writer is checked against. Null members are part of the shape, so
/// they are encoded explicitly.
struct DocumentedVerification: Encodable {
    struct Face: Encodable { let x: Int, y: Int, width: Int, height: Int }
    struct Scores: Encodable { let brightness: Double, sharpness: Double, faces: Int }
    struct Quality: Encodable {
        let passed: Bool, reasons: [String], scores: Scores, attempt: Int, face: Face?, accepted_by_user: Bool
    }
    struct CaptureShape: Encodable {
        let id: String, content_type: String, captured_at: String, quality: Quality?, superseded: Bool

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(content_type, forKey: .content_type)
            try c.encode(captured_at, forKey: .captured_at)
            try c.encode(quality, forKey: .quality)
            try c.encode(superseded, forKey: .superseded)
        }

        enum CodingKeys: String, CodingKey { case id, content_type, captured_at, quality, superseded }
    }

    struct Step: Encodable {
        let id: String, type: String, status: String, completed_at: String?, artifacts: [String], captures: [CaptureShape]

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(artifacts, forKey: .artifacts)
            try c.encode(captures, forKey: .captures)
            try c.encode(id, forKey: .id)
            try c.encode(type, forKey: .type)
            try c.encode(status, forKey: .status)
            try c.encode(completed_at, forKey: .completed_at)
        }

        enum CodingKeys: String, CodingKey { case artifacts, captures, id, type, status, completed_at }
    }

    let object = "verification"
    let id: String, user_id: String?, workflow: String, workflow_version: Int, status: String
    let journey_url: String, return_url: String?, mobile_last4: String?, steps: [Step], metadata: [String: String]
    let created_at: String?, updated_at: String?, submitted_at: String?, decided_at: String?
    let decision: String?, decision_reason: String?, expires_at: String?, expired_reason: String?
    let last_step: String?, redacted_at: String?, resubmissions: Int, flags: [String], livemode: Bool

    init(_ v: Verification, publicURL: URL) {
        func time(_ date: Date?) -> String? { date.map { RFC3339.format($0) } }
        id = v.id.rawValue
        livemode = v.livemode
        user_id = v.redactedAt == nil ? v.userID : nil
        workflow = v.workflowKey
        workflow_version = v.workflowVersion
        status = v.status.rawValue
        journey_url = publicURL.absoluteString + "/j/" + v.id.rawValue
        return_url = v.returnURL
        mobile_last4 = v.redactedAt == nil ? String(v.mobile.suffix(4)) : nil
        steps = v.steps.map {
            Step(id: $0.id, type: $0.type.rawValue, status: $0.completedAt == nil ? "pending" : "completed",
                 completed_at: time($0.completedAt), artifacts: $0.artifacts, captures: $0.captures.map { capture in
                     CaptureShape(id: capture.id, content_type: capture.contentType, captured_at: RFC3339.format(capture.capturedAt),
                                  quality: capture.quality.map { q in
                                      Quality(passed: q.reasons.isEmpty, reasons: q.reasons.map(\.rawValue),
                                              scores: Scores(brightness: q.brightness, sharpness: q.sharpness, faces: q.faces),
                                              attempt: q.attempt,
                                              face: q.face.map { Face(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                                              accepted_by_user: q.acceptedByUser)
                                  }, superseded: capture.superseded)
                 })
        }
        metadata = v.metadata
        created_at = time(v.createdAt)
        updated_at = time(v.updatedAt)
        submitted_at = time(v.submittedAt)
        decided_at = time(v.decidedAt)
        decision = v.decision
        decision_reason = v.decisionReason
        resubmissions = v.resubmissions
        flags = v.flags.map(\.rawValue)
        expires_at = time(v.expiresAt)
        expired_reason = v.expiredReason
        last_step = v.lastStep
        redacted_at = time(v.redactedAt)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(object, forKey: .object)
        try c.encode(id, forKey: .id)
        try c.encode(user_id, forKey: .user_id)
        try c.encode(workflow, forKey: .workflow)
        try c.encode(workflow_version, forKey: .workflow_version)
        try c.encode(status, forKey: .status)
        try c.encode(journey_url, forKey: .journey_url)
        try c.encode(return_url, forKey: .return_url)
        try c.encode(mobile_last4, forKey: .mobile_last4)
        try c.encode(steps, forKey: .steps)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(created_at, forKey: .created_at)
        try c.encode(updated_at, forKey: .updated_at)
        try c.encode(submitted_at, forKey: .submitted_at)
        try c.encode(decided_at, forKey: .decided_at)
        try c.encode(decision, forKey: .decision)
        try c.encode(decision_reason, forKey: .decision_reason)
        try c.encode(expires_at, forKey: .expires_at)
        try c.encode(expired_reason, forKey: .expired_reason)
        try c.encode(last_step, forKey: .last_step)
        try c.encode(redacted_at, forKey: .redacted_at)
        try c.encode(resubmissions, forKey: .resubmissions)
        try c.encode(flags, forKey: .flags)
        try c.encode(livemode, forKey: .livemode)
    }

    enum CodingKeys: String, CodingKey {
        case object, id, user_id, workflow, workflow_version, status, journey_url, return_url, mobile_last4, steps,
             metadata, created_at, updated_at, submitted_at, decided_at, decision, decision_reason,
             expires_at, expired_reason, last_step, redacted_at, resubmissions, flags, livemode
    }
}
