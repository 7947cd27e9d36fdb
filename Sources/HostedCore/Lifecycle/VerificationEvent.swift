import Foundation

/// What can happen to a verification. `Verification.apply(_:at:by:)` is the only place its
/// status changes, and each change it makes records exactly one event (`unwrittenEvents`), which
/// the store writes in the transaction of the change.
///
/// ```
/// created ──signedIn──▶ in_progress ──submitted──▶ submitted ──decided──▶ approved | rejected
///                                                  │   ▲
///                      resubmissionRequested (some steps again) │  submitted
///                                                  ▼   │
///                                        resubmission_requested
///    └────────────┴──────── canceled (any state before a decision) ──┘
///    └────────────┴──────── expired (past expires_at, before submitting)
/// approved | rejected | canceled | expired ──redacted──▶ (same status, personal data erased)
/// ```
public enum VerificationEvent: Equatable, Sendable {
    /// The customer created it.
    case created
    /// The customer changed details (the names of the fields, never their values).
    case updated(fields: [String])
    /// The customer minted a handoff URL.
    case handoffCreated
    /// The user signed in to the journey (the first time moves `created` to `in_progress`).
    case signedIn(method: SignInMethod)
    /// The user completed (or redid) a step.
    case stepCompleted(stepID: String)
    /// The user submitted every completed step.
    case submitted
    /// An approval or a rejection of a submitted verification. With four eyes, the first
    /// approval is recorded (a `review_note`) and the verification stays submitted.
    case decided(approved: Bool, reason: String?)
    /// A reviewer looked at it or wrote a note, without deciding.
    case reviewed(ReviewAction)
    /// The user asked to continue on another device (a new link and number).
    case continuationCreated
    /// The other device picked the right number (its sign-in follows as `signedIn(.continuation)`).
    case continuationMatched
    /// The other device picked a wrong number: the link is burned.
    case continuationFailed
    /// The other device's user said "this wasn't me": the link is burned, the verification
    /// flagged, and with `cancel` (the workflow's `on_report`) canceled too.
    case continuationReported(cancel: Bool)
    /// The computer asked to continue in the customer's own app (`continuationID` is the live
    /// link the app's handoff will join); the customer's backend learns it by webhook.
    case continuationRequested(continuationID: String)
    /// A reviewer asked for `steps` again (`reason`, a `ResubmissionReason`; `message` for the
    /// user); it stays open until `expiresAt`, at most `limit` times in all.
    case resubmissionRequested(steps: [String], reason: ResubmissionReason, message: String?, expiresAt: Date, limit: Int)
    /// Its evidence bundle was exported (by the API, the console or the command line), with the
    /// SHA-256 (hex) of the bundle's `manifest.json`: changes nothing about it, in any state,
    /// redacted or not; the event is the record.
    case evidenceExported(manifestSHA256: String)
    /// The customer canceled it.
    case canceled
    /// Its time ran out before it was submitted.
    case expired
    /// Its personal data was erased (terminal states only).
    case redacted
}
