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
