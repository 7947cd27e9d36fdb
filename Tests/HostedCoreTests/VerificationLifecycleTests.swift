import Foundation
import HostedCore
import Testing

/// The status machine: which event may follow which state, what each one changes.
@Suite struct VerificationLifecycleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func verification(_ status: VerificationStatus = .created, completed: Bool = true) -> Verification {
        var verification = Verification(
            id: ObjectID(.verification, parsing: "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
            userID: "u", workflowKey: "kyc", workflowVersion: 1, status: .created, mobile: "+919876543210", returnURL: nil,
            metadata: [:], steps: [StepState(id: "selfie", type: .selfie, completedAt: completed ? now : nil)],
            createdAt: now, updatedAt: now)
        // Reach `status` the only way there is: through events.
        let path: [VerificationStatus: [VerificationEvent]] = [
            .created: [], .inProgress: [.signedIn], .submitted: [.signedIn, .submitted],
            .approved: [.signedIn, .submitted, .decided(approved: true, reason: nil)],
            .rejected: [.signedIn, .submitted, .decided(approved: false, reason: "blurry")], .canceled: [.canceled],
        ]
        for event in path[status] ?? [] { try? verification.apply(event, at: now) }
        return verification
    }

    static func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch DomainError.conflict(_, let code, _) {
            return code.rawValue
        } catch {
            return "other"
        }
    }

    @Test func theHappyPath() throws {
        var v = Self.verification()
        try v.apply(.signedIn, at: Self.now)
        #expect(v.status == .inProgress)
        try v.apply(.signedIn, at: Self.now)  // a second sign-in changes nothing
        #expect(v.status == .inProgress)
        try v.apply(.submitted, at: Self.now)
        #expect(v.status == .submitted && v.submittedAt == Self.now)
        #expect(v.decision == nil)
        try v.apply(.decided(approved: false, reason: "document_unclear"), at: Self.now)
        #expect(v.status == .rejected && v.decision == "rejected" && v.decisionReason == "document_unclear" && v.decidedAt == Self.now)
    }

    @Test(arguments: [
        (VerificationStatus.created, VerificationEvent.decided(approved: true, reason: nil), "verification_not_submitted"),
        (.inProgress, .decided(approved: true, reason: nil), "verification_not_submitted"),
        (.approved, .decided(approved: false, reason: nil), "verification_not_submitted"),
        (.approved, .canceled, "verification_closed"),
        (.rejected, .submitted, "verification_closed"),
        (.canceled, .signedIn, "verification_closed"),
        (.canceled, .submitted, "verification_closed"),
    ])
    func refusedTransitions(_ from: VerificationStatus, _ event: VerificationEvent, _ expected: String) {
        var v = Self.verification(from)
        #expect(v.status == from)
        #expect(Self.code { try v.apply(event, at: Self.now) } == expected)
        #expect(v.status == from)
    }

    @Test func submitNeedsEveryStepAndRepeatsQuietly() throws {
        var incomplete = Self.verification(.inProgress, completed: false)
        #expect(Self.code { try incomplete.apply(.submitted, at: Self.now) } == "steps_incomplete")
        var submitted = Self.verification(.submitted)
        try submitted.apply(.submitted, at: Self.now.addingTimeInterval(60))
        #expect(submitted.submittedAt == Self.now)
    }

    @Test func closingEndsTheJourneyOnce() throws {
        let open = Self.verification(.submitted)
        var canceled = open
        try canceled.apply(.canceled, at: Self.now)
        #expect(canceled.closesJourney(from: open))
        var again = canceled
        try again.apply(.canceled, at: Self.now)
        #expect(!again.closesJourney(from: canceled))
    }
}
