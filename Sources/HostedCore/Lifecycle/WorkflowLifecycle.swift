/// How long a workflow's verifications stay open, and how long their data is kept after a
/// terminal state (DESIGN.md, "Verification lifecycle"). A verification pins both at creation.
public struct WorkflowLifecycle: Equatable, Sendable {
    /// Seconds from creation until a verification not yet submitted expires.
    public let expiresAfterSeconds: Int64
    /// Seconds from a terminal state until the system redacts it; nil keeps data until redacted
    /// through the API.
    public let redactAfterSeconds: Int64?

    public init(expiresAfterSeconds: Int64 = WorkflowLifecycle.defaultExpiresAfterSeconds, redactAfterSeconds: Int64? = nil) {
        self.expiresAfterSeconds = expiresAfterSeconds
        self.redactAfterSeconds = redactAfterSeconds
    }

    /// Seven days.
    public static let defaultExpiresAfterSeconds: Int64 = 604_800
    public static let expiresAfterBounds: ClosedRange<Int64> = 3_600...7_776_000
    public static let redactAfterBounds: ClosedRange<Int64> = 86_400...315_360_000

    /// Checks the optional workflow fields; in dev mode both may go down to one second.
    public static func validate(expiresAfterSeconds: Int64?, redactAfterSeconds: Int64?, devMode: Bool) throws(DomainError) -> WorkflowLifecycle {
        var errors: [FieldError] = []
        let expiry = devMode ? 1...expiresAfterBounds.upperBound : expiresAfterBounds
        let retention = devMode ? 1...redactAfterBounds.upperBound : redactAfterBounds
        if let expiresAfterSeconds, !expiry.contains(expiresAfterSeconds) {
            errors.append(FieldError(field: "expires_after_seconds", message: "must be \(expiry.lowerBound) to \(expiry.upperBound)"))
        }
        if let redactAfterSeconds, !retention.contains(redactAfterSeconds) {
            errors.append(FieldError(field: "retention.redact_after_seconds", message: "must be \(retention.lowerBound) to \(retention.upperBound)"))
        }
        guard errors.isEmpty else { throw .invalidRequest(detail: "The workflow is not valid.", errors: errors) }
        return WorkflowLifecycle(expiresAfterSeconds: expiresAfterSeconds ?? defaultExpiresAfterSeconds,
                                 redactAfterSeconds: redactAfterSeconds)
    }
}
