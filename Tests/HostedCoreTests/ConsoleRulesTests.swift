import Foundation
import HostedCore
import Testing

/// The console's rules that need no I/O: passwords, emails, TOTP arithmetic, four eyes.
@Suite struct ConsoleRulesTests {
    @Test func passwordPolicyRefusesShortCommonRepeatedAndOwnEmail() {
        let email = "reviewer@acme.example"
        #expect(PasswordPolicy.problem(with: "short-pass1", email: email) == "must be at least 12 characters")
        #expect(PasswordPolicy.problem(with: String(repeating: "a", count: 257), email: email) == "must be at most 256 characters")
        #expect(PasswordPolicy.problem(with: "aaaaaaaaaaaaaaaa", email: email) == "must not be one character repeated")
        #expect(PasswordPolicy.problem(with: "Password1234", email: email) == "is a commonly used password; choose another")
        #expect(PasswordPolicy.problem(with: "QWERTYUIOPASDFGH", email: email) == "is a commonly used password; choose another")
        #expect(PasswordPolicy.problem(with: "Reviewer@Acme.Example", email: email) == "must not be your email address")
        #expect(PasswordPolicy.problem(with: "plum tractor velvet 42", email: email) == nil)
        // Length counts code points (NIST SP 800-63B), so a Devanagari pass phrase is not undercounted.
        #expect(PasswordPolicy.problem(with: "नमस्ते-दुनिया-42", email: email) == nil)
    }

    @Test func emailsAreNormalizedOrRefused() {
        #expect(OperatorRules.normalizedEmail("  Ana@Example.IN ") == "ana@example.in")
        for bad in ["", "ana", "ana@", "@example.in", "ana@example", "a na@example.in", "ana@@example.in", "ana@example.in.", "ana@\u{0}x.in"] {
            #expect(OperatorRules.normalizedEmail(bad) == nil, "\(bad)")
        }
    }

    @Test func totpCountersCodesAndPresentedText() {
        #expect(TOTP.counter(at: Date(timeIntervalSince1970: 59)) == 1)
        #expect(TOTP.counter(at: Date(timeIntervalSince1970: 60)) == 2)
        #expect(TOTP.counter(at: Date(timeIntervalSince1970: -5)) == 0)
        #expect(TOTP.message(counter: 0x0102030405060708) == [1, 2, 3, 4, 5, 6, 7, 8])
        // RFC 4226 appendix D: the HMAC of count 0 with the ASCII seed "12345678901234567890".
        let mac: [UInt8] = [0xcc, 0x93, 0xcf, 0x18, 0x50, 0x8d, 0x94, 0x93, 0x4c, 0x64, 0xb6, 0x5d, 0x8b, 0xa7, 0x66, 0x7f,
                            0xb7, 0xcd, 0xe4, 0xb0]
        #expect(TOTP.code(mac: mac) == "755224")
        #expect(TOTP.code(mac: [1, 2, 3]) == "")
        #expect(TOTP.presented("123 456") == "123456")
        #expect(TOTP.presented("12345") == nil)
        #expect(TOTP.presented("12345a") == nil)
        #expect(TOTP.presented("١٢٣٤٥٦") == nil)  // digits of another script are not code digits
        let uri = TOTP.provisioningURI(seed: Array("12345678901234567890".utf8), issuer: "Hosted", account: "ana@example.in")
        #expect(uri == "otpauth://totp/Hosted:ana@example.in?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Hosted&algorithm=SHA1&digits=6&period=30")
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func submitted(approvalsRequired: Int) -> Verification {
        var verification = Verification(
            id: ObjectID(.verification, parsing: "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
            userID: "u", workflowKey: "kyc", workflowVersion: 1, status: .created, mobile: "+919876543210", returnURL: nil,
            metadata: [:], steps: [StepState(id: "selfie", type: .selfie, completedAt: now)], createdAt: now, updatedAt: now,
            approvalsRequired: approvalsRequired)
        try? verification.apply(.signedIn(method: .sms), at: now, by: .journey)
        try? verification.apply(.submitted, at: now, by: .journey)
        _ = verification.takeUnwrittenEvents()
        return verification
    }

    static let first = EventActor(.operator, id: "op_aaaaaaaaaaaaaaaaaaaaaaaaaa")
    static let second = EventActor(.operator, id: "op_bbbbbbbbbbbbbbbbbbbbbbbbbb")

    @Test func oneApprovalDecidesWhenOneIsRequired() throws {
        var verification = Self.submitted(approvalsRequired: 1)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        #expect(verification.status == .approved)
        #expect(verification.takeUnwrittenEvents().map(\.type) == [.approved])
    }

    @Test func fourEyesNeedTwoDifferentApprovers() throws {
        var verification = Self.submitted(approvalsRequired: 2)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        #expect(verification.status == .submitted)
        #expect(verification.approvals == ["operator:op_aaaaaaaaaaaaaaaaaaaaaaaaaa"])
        let note = verification.takeUnwrittenEvents()
        #expect(note.map(\.type) == [.reviewNote])
        #expect(note.first?.data == ["kind": .string("approval"), "approvals": .integer(1), "approvals_required": .integer(2)])
        #expect(note.first?.actor == Self.first)

        // The same reviewer cannot be the second pair of eyes, and nothing is recorded.
        #expect(throws: DomainError.self) {
            try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        }
        #expect(verification.unwrittenEvents.isEmpty)
        #expect(verification.status == .submitted)

        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.second)
        #expect(verification.status == .approved)
        #expect(verification.takeUnwrittenEvents().map(\.actor) == [Self.second])
    }

    /// Issue 37: with two approvals required, two API keys of the account decided alone.
    @Test func anAccountsAPIKeysTogetherAreOneReviewer() throws {
        var verification = Self.submitted(approvalsRequired: 2)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: EventActor(.apiKey, id: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa"))
        _ = verification.takeUnwrittenEvents()
        #expect(throws: DomainError.self) {
            try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: EventActor(.apiKey, id: "key_bbbbbbbbbbbbbbbbbbbbbbbbbb"))
        }
        #expect(verification.unwrittenEvents.isEmpty && verification.status == .submitted)
        // An operator is the second pair of eyes.
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        #expect(verification.status == .approved)
        #expect(EventActor.reviewer(ofReference: "api_key:key_x") == "api_key" && Self.first.reviewer == Self.first.reference)
    }

    /// A first approval was given to photos a retake supersedes: four eyes start over, so one
    /// more approval after the user's new photos does not decide (issue 39).
    @Test func aRetakeRequestClearsTheApprovalsGivenSoFar() throws {
        var verification = Self.submitted(approvalsRequired: 2)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        #expect(verification.approvals.count == 1)
        try verification.apply(.resubmissionRequested(steps: ["selfie"], reason: .photoUnclear, message: nil,
                                                      expiresAt: Self.now.addingTimeInterval(3600), limit: 2),
                               at: Self.now, by: Self.first)
        #expect(verification.approvals.isEmpty)
        #expect(verification.reopenedStepIDs == ["selfie"])
        verification.steps[0].completedAt = Self.now.addingTimeInterval(60)
        #expect(verification.reopenedStepIDs == ["selfie"]) // redone since the submit: still reopened
        try verification.apply(.submitted, at: Self.now.addingTimeInterval(61), by: .journey)
        #expect(verification.reopenedStepIDs.isEmpty)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.second)
        #expect(verification.status == .submitted)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        #expect(verification.status == .approved)
    }

    /// A step completed in the submit's own millisecond was completed before it (the stores keep
    /// milliseconds; the clock in memory has more).
    @Test func aStepCompletedInTheSubmitsMillisecondIsNotReopened() throws {
        var verification = Self.submitted(approvalsRequired: 1)
        verification.steps.append(StepState(id: "shop", type: .premisesPhotos, completedAt: Self.now.addingTimeInterval(0.0004)))
        try verification.apply(.resubmissionRequested(steps: ["selfie"], reason: .photoUnclear, message: nil,
                                                      expiresAt: Self.now.addingTimeInterval(3600), limit: 2),
                               at: Self.now, by: Self.first)
        #expect(verification.reopenedStepIDs == ["selfie"])
    }

    @Test func oneRejectionDecidesEvenAfterAnApproval() throws {
        var verification = Self.submitted(approvalsRequired: 2)
        try verification.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.first)
        try verification.apply(.decided(approved: false, reason: "face_mismatch"), at: Self.now, by: Self.second)
        #expect(verification.status == .rejected)
        #expect(verification.takeUnwrittenEvents().last?.data["reason"] == .string("face_mismatch"))
    }

    @Test func reviewActionsRecordAnEventAndChangeNothing() throws {
        var verification = Self.submitted(approvalsRequired: 1)
        let before = verification
        try verification.apply(.reviewed(.viewed), at: Self.now, by: Self.first)
        try verification.apply(.reviewed(.note), at: Self.now, by: Self.first)
        #expect(verification.takeUnwrittenEvents().map { $0.data["kind"] } == [.string("viewed"), .string("note")])
        #expect(verification == before)
    }

    @Test func workflowReviewTakesOneOrTwoApprovals() throws {
        #expect(try WorkflowReview.validate(approvalsRequired: nil).approvalsRequired == 1)
        #expect(try WorkflowReview.validate(approvalsRequired: 2).approvalsRequired == 2)
        for bad in [0, 3, -1, Int.max] {
            #expect(throws: DomainError.self) { try WorkflowReview.validate(approvalsRequired: bad) }
        }
    }

    @Test func reviewNotesAreTrimmedAndBounded() {
        #expect(ReviewNoteRules.validated("  blurry photo\nask again ") == "blurry photo\nask again")
        #expect(ReviewNoteRules.validated("   ") == nil)
        #expect(ReviewNoteRules.validated(String(repeating: "x", count: 2001)) == nil)
        #expect(ReviewNoteRules.validated("bell\u{7}") == nil)
    }
}
