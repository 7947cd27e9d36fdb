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
            .created: [], .inProgress: [.signedIn(method: .sms)], .submitted: [.signedIn(method: .sms), .submitted],
            .approved: [.signedIn(method: .sms), .submitted, .decided(approved: true, reason: nil)],
            .rejected: [.signedIn(method: .sms), .submitted, .decided(approved: false, reason: "blurry")], .canceled: [.canceled],
        ]
        for event in path[status] ?? [] { try? verification.apply(event, at: now, by: .system) }
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
        try v.apply(.signedIn(method: .sms), at: Self.now, by: .system)
        #expect(v.status == .inProgress)
        try v.apply(.signedIn(method: .sms), at: Self.now, by: .system)  // a second sign-in changes nothing
        #expect(v.status == .inProgress)
        try v.apply(.submitted, at: Self.now, by: .system)
        #expect(v.status == .submitted && v.submittedAt == Self.now)
        #expect(v.decision == nil)
        try v.apply(.decided(approved: false, reason: "document_unclear"), at: Self.now, by: .system)
        #expect(v.status == .rejected && v.decision == "rejected" && v.decisionReason == "document_unclear" && v.decidedAt == Self.now)
    }

    @Test(arguments: [
        (VerificationStatus.created, VerificationEvent.decided(approved: true, reason: nil), "verification_not_submitted"),
        (.inProgress, .decided(approved: true, reason: nil), "verification_not_submitted"),
        (.approved, .decided(approved: false, reason: nil), "verification_not_submitted"),
        (.approved, .canceled, "verification_closed"),
        (.rejected, .submitted, "verification_closed"),
        (.canceled, .signedIn(method: .sms), "verification_closed"),
        (.canceled, .submitted, "verification_closed"),
    ])
    func refusedTransitions(_ from: VerificationStatus, _ event: VerificationEvent, _ expected: String) {
        var v = Self.verification(from)
        #expect(v.status == from)
        #expect(Self.code { try v.apply(event, at: Self.now, by: .system) } == expected)
        #expect(v.status == from)
    }

    @Test func submitNeedsEveryStepAndRepeatsQuietly() throws {
        var incomplete = Self.verification(.inProgress, completed: false)
        #expect(Self.code { try incomplete.apply(.submitted, at: Self.now, by: .system) } == "steps_incomplete")
        var submitted = Self.verification(.submitted)
        try submitted.apply(.submitted, at: Self.now.addingTimeInterval(60), by: .system)
        #expect(submitted.submittedAt == Self.now)
    }

    @Test func closingEndsTheJourneyOnce() throws {
        let open = Self.verification(.submitted)
        var canceled = open
        try canceled.apply(.canceled, at: Self.now, by: .system)
        #expect(canceled.closesJourney(from: open))
        var again = canceled
        try again.apply(.canceled, at: Self.now, by: .system)
        #expect(!again.closesJourney(from: canceled))
    }

    @Test func everyChangeRecordsExactlyOneEventAndARepeatNone() throws {
        var v = Self.verification(completed: false)
        let steps: [(VerificationEvent, EventType)] = [
            (.created, .created), (.updated(fields: ["metadata", "mobile"]), .updated), (.handoffCreated, .handoffCreated),
            (.signedIn(method: .handoff), .signedIn), (.signedIn(method: .sms), .signedIn), (.stepCompleted(stepID: "selfie"), .stepCompleted),
            (.submitted, .submitted), (.decided(approved: false, reason: "name mismatch: Ravi"), .rejected), (.redacted, .redacted),
        ]
        for (event, type) in steps {
            try v.apply(event, at: Self.now, by: .journey)
            #expect(v.takeUnwrittenEvents().map(\.type) == [type], "\(event)")
        }
        // Repeats of a terminal change record nothing.
        try v.apply(.redacted, at: Self.now, by: .system)
        #expect(v.unwrittenEvents.isEmpty)
        var canceled = Self.verification(.canceled)
        _ = canceled.takeUnwrittenEvents()
        try canceled.apply(.canceled, at: Self.now, by: .system)
        #expect(canceled.unwrittenEvents.isEmpty)
    }

    @Test func aFreeTextRejectionReasonStaysOutOfTheEvent() throws {
        var prose = Self.verification(.submitted)
        _ = prose.takeUnwrittenEvents()
        try prose.apply(.decided(approved: false, reason: "name mismatch: Ravi Kumar"), at: Self.now, by: .system)
        #expect(prose.unwrittenEvents.first?.data["reason"] == .null)
        var coded = Self.verification(.submitted)
        _ = coded.takeUnwrittenEvents()
        try coded.apply(.decided(approved: false, reason: "document_blurry"), at: Self.now, by: .system)
        #expect(coded.unwrittenEvents.first?.data["reason"] == .string("document_blurry"))
    }

    @Test func expiryTellsNotStartedFromAbandonedAndNamesTheLastStep() throws {
        var untouched = Self.verification(.created, completed: false)
        #expect(!untouched.isDueToExpire(at: untouched.expiresAt.addingTimeInterval(-1)))
        #expect(untouched.isDueToExpire(at: untouched.expiresAt))
        try untouched.apply(.expired, at: Self.now, by: .system)
        #expect(untouched.status == .expired && untouched.expiredReason == "not_started" && untouched.lastStep == nil)

        var started = Self.verification(.inProgress, completed: false)
        try started.apply(.stepCompleted(stepID: "selfie"), at: Self.now, by: .journey)
        _ = started.takeUnwrittenEvents()
        try started.apply(.expired, at: Self.now, by: .system)
        #expect(started.status == .expired && started.expiredReason == "abandoned" && started.lastStep == "selfie")
        #expect(started.unwrittenEvents.first?.data == ["status": .string("expired"), "reason": .string("abandoned"),
                                                        "last_step": .string("selfie")])
        // A submitted one never expires: it waits for its decision.
        var submitted = Self.verification(.submitted)
        #expect(!submitted.isDueToExpire(at: submitted.expiresAt.addingTimeInterval(1)))
        #expect(Self.code { try submitted.apply(.expired, at: Self.now, by: .system) } == "verification_closed")
    }

    @Test func redactionIsForTerminalStatesAndErasesThePersonalFields() throws {
        var open = Self.verification(.inProgress)
        #expect(Self.code { try open.apply(.redacted, at: Self.now, by: .system) } == "verification_not_terminal")
        var closed = Self.verification(.rejected)
        try closed.apply(.redacted, at: Self.now, by: .system)
        #expect(closed.userID == Verification.redactedUserIDPrefix + closed.id.rawValue && closed.mobile == "" && closed.metadata.isEmpty && closed.decisionReason == nil)
        #expect(closed.redactedAt == Self.now && closed.mobileLast4 == nil)
    }

    @Test func retentionIsScheduledWhenATerminalStateIsReached() throws {
        var v = Verification(
            id: ObjectID(.verification, parsing: "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
            userID: "u", workflowKey: "kyc", workflowVersion: 1, status: .created, mobile: "+919876543210", returnURL: nil,
            metadata: [:], steps: [], createdAt: Self.now, updatedAt: Self.now, redactAfterSeconds: 86_400)
        #expect(v.redactAt == nil)
        try v.apply(.canceled, at: Self.now, by: .system)
        #expect(v.redactAt == Self.now.addingTimeInterval(86_400))
    }
}
