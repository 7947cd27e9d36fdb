/// Every stable machine code the service answers a domain error with (the RFC 9457 `code`
/// member), in one place. The HTTP layer's own codes (`malformed_request`, `payload_too_large`,
/// `method_not_allowed`, `server_busy`, …) belong to it and are not here.
public enum ProblemCode: String, Sendable, CaseIterable {
    case invalidRequest = "invalid_request"
    case unauthorized
    case notFound = "not_found"
    case rateLimited = "rate_limited"
    // Return URLs
    case returnURLInvalid = "return_url_invalid"
    case returnURLNotHTTPS = "return_url_not_https"
    case returnURLSchemeNotAllowed = "return_url_scheme_not_allowed"
    case returnURLNotRegistered = "return_url_not_registered"
    // Verifications and their steps
    case verificationClosed = "verification_closed"
    case verificationNotSubmitted = "verification_not_submitted"
    case verificationNotTerminal = "verification_not_terminal"
    case resubmissionLimitReached = "resubmission_limit_reached"
    case artifactRedacted = "artifact_redacted"
    /// A test helper called with a live key (`POST /v1/test_helpers/…`).
    case testModeOnly = "test_mode_only"
    /// Creating API keys needs a live key.
    case liveKeyRequired = "live_key_required"
    /// A verification whose evidence bundle would pass the size a bundle may have.
    case evidenceTooLarge = "evidence_too_large"
    case stepIncomplete = "step_incomplete"
    case stepCompleted = "step_completed"
    case stepsIncomplete = "steps_incomplete"
    case tooManyImages = "too_many_images"
    case imageInvalid = "image_invalid"
    /// Completing a step whose workflow requires passing photos while one fails.
    case captureQuality = "capture_quality"
    /// A body of a type the request does not take (a logo that is not a PNG or JPEG).
    case unsupportedMediaType = "unsupported_media_type"
    // Idempotency and handoffs
    case idempotencyKeyInUse = "idempotency_key_in_use"
    case idempotencyKeyReused = "idempotency_key_reused"
    case handoffNotReissuable = "handoff_not_reissuable"
    // The journey's sign-in
    case signinRequired = "signin_required"
    case originMismatch = "origin_mismatch"
    case codeInvalid = "code_invalid"
    // Continuing on another device
    case continuationInvalid = "continuation_invalid"
    case continuationFailed = "continuation_failed"
    /// The customer's app asked to join a continuation the computer no longer shows.
    case noContinuationRequested = "no_continuation_requested"
    // The operator console
    case consoleSigninFailed = "console_signin_failed"
    case consoleSigninRequired = "console_signin_required"
    case setupLinkInvalid = "setup_link_invalid"
    case passwordNotAllowed = "password_not_allowed"
    case operatorRoleRequired = "operator_role_required"
    case operatorExists = "operator_exists"
    case approvalAlreadyRecorded = "approval_already_recorded"
    // Webhooks
    case webhookURLNotAllowed = "webhook_url_not_allowed"
    case webhookEndpointDisabled = "webhook_endpoint_disabled"
    case webhookEndpointLimitReached = "webhook_endpoint_limit_reached"
    // Something we depend on is not there
    case smsUnavailable = "sms_unavailable"
    case digilockerUnavailable = "digilocker_unavailable"
    case databaseUnavailable = "database_unavailable"
    /// The object store artifacts go to failed (down, refusing the credentials): nothing was stored.
    case artifactStoreUnavailable = "artifact_store_unavailable"
    /// An artifact's stored bytes do not match the SHA-256 its row recorded: not served.
    case artifactIntegrityFailed = "artifact_integrity_failed"
    case notReady = "not_ready"
    /// Every decode thread busy and the waiting line full.
    case serverBusy = "server_busy"
}
