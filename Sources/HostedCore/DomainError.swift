/// What can go wrong in Hosted's domain, independent of HTTP (the app maps it to RFC 9457 problems).
public enum DomainError: Error, Equatable, Sendable {
    /// No credential, or one that is unknown or revoked.
    case unauthenticated
    /// A journey, continuation or console credential is missing or not right (each has its code).
    case unauthorized(detail: String, code: ProblemCode)
    /// The caller is known but may not do this (a page of another origin, a reviewer's console).
    case forbidden(detail: String, code: ProblemCode)
    /// The object does not exist, or belongs to another account (never told apart).
    case notFound(what: String)
    /// A link that existed once and no longer leads anywhere (a used setup link), with its code.
    case missing(detail: String, code: ProblemCode)
    /// The request cannot be read at all (not JSON, a header of the wrong shape).
    case malformed(detail: String, errors: [FieldError] = [])
    /// The request is malformed or breaks a rule.
    case invalidRequest(detail: String, errors: [FieldError] = [], code: ProblemCode = .invalidRequest)
    /// The request conflicts with the object's current state (or, with `retryAfterSeconds`, with
    /// a request still running).
    case conflict(detail: String, code: ProblemCode, retryAfterSeconds: Int? = nil)
    /// Too many requests of this kind; worth retrying after `retryAfterSeconds`.
    case rateLimited(detail: String, retryAfterSeconds: Int)
    /// The object existed but what was asked for is gone for good (a redacted artifact).
    case gone(detail: String, code: ProblemCode)
    /// Something the request needs is not available (an SMS relay, DigiLocker, the database);
    /// worth retrying after `retryAfterSeconds` when there is one.
    case unavailable(detail: String, code: ProblemCode, retryAfterSeconds: Int?)
    /// The body is not of a type this request takes (a logo that is not a PNG or JPEG).
    case unsupportedMediaType(detail: String)
}
