import Foundation

/// What can happen to a verification. `Verification.apply(_:at:)` is the only place its status
/// changes, so every rule about which state may follow which lives here (and the lifecycle's
/// event log will hang on it).
///
/// ```
/// created ──signedIn──▶ in_progress ──submitted──▶ submitted ──decided──▶ approved | rejected
///    └────────────┴──────── canceled (any state before a decision) ──┘
/// ```
public enum VerificationEvent: Equatable, Sendable {
    /// The user signed in to the journey (the first time moves `created` to `in_progress`).
    case signedIn
    /// The user submitted every completed step.
    case submitted
    /// An approval or a rejection of a submitted verification.
    case decided(approved: Bool, reason: String?)
    /// The customer canceled it.
    case canceled
}

extension VerificationStatus {
    /// Open verifications can still be worked on or decided.
    public var isOpen: Bool { !isClosed }
}

extension Verification {
    /// Applies `event` at `time`. Repeating an event the verification has already had (a second
    /// sign-in, a second submit, canceling a canceled one) changes nothing; an event its state
    /// does not allow is a typed conflict.
    public mutating func apply(_ event: VerificationEvent, at time: Date) throws(DomainError) {
        switch event {
        case .signedIn:
            guard status.isOpen else { throw Self.closed(status, action: "signed in to") }
            if status == .created { status = .inProgress }
        case .submitted:
            if status == .submitted { return }
            guard status.isEditable else { throw Self.closed(status, action: "submitted") }
            guard steps.allSatisfy({ $0.completedAt != nil }) else {
                throw .conflict(detail: "Complete every step before submitting.", code: .stepsIncomplete)
            }
            status = .submitted
            submittedAt = time
        case .decided(let approved, let reason):
            guard status == .submitted else {
                throw .conflict(detail: "Only a submitted verification can be decided; this one is \(status.rawValue).",
                                code: .verificationNotSubmitted)
            }
            status = approved ? .approved : .rejected
            decisionReason = reason
            decidedAt = time
        case .canceled:
            if status == .canceled { return }
            guard status.isOpen else { throw Self.closed(status, action: "canceled") }
            status = .canceled
        }
    }

    /// The decision the API shows: the status once decided, else nil.
    public var decision: String? {
        status == .approved || status == .rejected ? status.rawValue : nil
    }

    /// Whether going from `before` to this state ends the journey (its handoffs and sessions stop).
    public func closesJourney(from before: Verification) -> Bool {
        status.isClosed && before.status.isOpen
    }

    static func closed(_ status: VerificationStatus, action: String) -> DomainError {
        .conflict(detail: "The verification is \(status.rawValue) and can no longer be \(action).", code: .verificationClosed)
    }
}
