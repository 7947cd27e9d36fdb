import Foundation
@testable import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import Testing

/// The hand-written verification JSON (the polling hot path) is byte for byte what the
/// Encodable form gives, so the documented shape has one definition in effect.
@Suite struct VerificationJSONTests {
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

    @Test(arguments: [
        (nil, [:], false),
        ("https://app.example.com/kyc/done?x=1&y=/z", ["order": "42", "note": "quote \" backslash \\ slash / नमस्ते"], true),
    ] as [(String?, [String: String], Bool)])
    func handWrittenJSONEqualsTheEncoder(_ returnURL: String?, _ metadata: [String: String], _ completed: Bool) throws {
        let body = APIObjects.VerificationBody(Self.sample(returnURL: returnURL, metadata: metadata, completed: completed),
                                               publicURL: URL(string: "https://verify.example.com")!)
        let encoded = String(decoding: try JSONCoding.encoder.encode(body), as: UTF8.self)
        #expect(body.json == encoded)
    }
}

/// The documented shape as an Encodable form: the oracle `VerificationBody.json` is checked
/// against (null members are part of the shape, so they are encoded explicitly).
extension APIObjects.StepBody: Encodable {
    public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(artifacts, forKey: .artifacts)
            try container.encode(id, forKey: .id)
            try container.encode(type, forKey: .type)
            try container.encode(status, forKey: .status)
            try container.encode(completed_at, forKey: .completed_at)
        }

        enum CodingKeys: String, CodingKey { case artifacts, id, type, status, completed_at }
    }

extension APIObjects.VerificationBody: Encodable {
    public func encode(to encoder: Encoder) throws {
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
        }

        enum CodingKeys: String, CodingKey {
            case object, id, user_id, workflow, workflow_version, status, journey_url, return_url, mobile_last4, steps,
                 metadata, created_at, updated_at, submitted_at, decided_at, decision, decision_reason,
                 expires_at, expired_reason, last_step, redacted_at
        }
}
