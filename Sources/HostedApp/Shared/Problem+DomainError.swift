import HostedCore
import HostedHTTP
import HostedStorage

/// The one place errors become HTTP problems: services and routes throw `DomainError` (or let a
/// storage error through), and only this file chooses a status, a title and a code for them.
extension Problem {
    init(_ error: DomainError) {
        switch error {
        case .unauthenticated:
            self = .unauthorized("Provide a valid API key as `Authorization: Bearer sk_…`.")
        case .unauthorized(let detail, let code):
            self.init(status: 401, code: code, title: "Unauthorized", detail: detail)
        case .forbidden(let detail, let code):
            self.init(status: 403, code: code, title: "Forbidden", detail: detail)
        case .notFound(let what):
            self = .notFound("No such \(what).")
        case .missing(let detail, let code):
            self.init(status: 404, code: code, title: "Not Found", detail: detail)
        case .malformed(let detail, let errors):
            self = .invalidRequest(detail, errors: errors.map(Self.issue), status: 400)
        case .invalidRequest(let detail, let errors, let code):
            self = .invalidRequest(detail, errors: errors.map(Self.issue), code: code.rawValue)
        case .conflict(let detail, let code, let retryAfter):
            self.init(status: 409, code: code, title: "Conflict", detail: detail, retryAfter: retryAfter)
        case .rateLimited(let detail, let retryAfter):
            self.init(status: 429, code: .rateLimited, title: "Too Many Requests", detail: detail, retryAfter: retryAfter)
        case .gone(let detail, let code):
            self.init(status: 410, code: code, title: "Gone", detail: detail)
        case .unavailable(let detail, let code, let retryAfter):
            self.init(status: 503, code: code, title: "Service Unavailable", detail: detail, retryAfter: retryAfter)
        case .unsupportedMediaType(let detail):
            self.init(status: 415, code: .unsupportedMediaType, title: "Unsupported Media Type", detail: detail)
        }
    }

    /// The problem any error maps to. An unexpected one is reported (to the log, with the
    /// request id) and never shown: the client gets the fixed `internal_error`.
    static func mapping(_ error: any Error, report: (String) -> Void) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as DomainError:
            return Problem(error)
        case let error as DatabaseError:
            report("database: \(error.debugDescription)")
            switch error {
            case .connectionLost, .cannotConnect, .busy:
                return Problem(.unavailable(detail: "The database is unreachable. Retry shortly.", code: .databaseUnavailable,
                                            retryAfterSeconds: 1))
            case .invalidValue: return Problem.invalidRequest("A value in the request cannot be stored.")
            default: return Problem.internalError
            }
        default:
            report("unhandled: \(String(reflecting: error))")
            return Problem.internalError
        }
    }

    private init(status: Int, code: ProblemCode, title: String, detail: String, retryAfter: Int? = nil) {
        self.init(status: status, code: code.rawValue, title: title, detail: detail,
                  headers: retryAfter.map { [("Retry-After", String($0))] } ?? [])
    }

    private static func issue(_ error: FieldError) -> FieldIssue {
        FieldIssue(field: error.field, message: error.message, code: error.code.rawValue)
    }
}

extension DomainError {
    /// The problem's response, for a route that adds a header to it or answers after returning.
    var response: Response { Problem(self).response }
}
