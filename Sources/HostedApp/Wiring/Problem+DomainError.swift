import HostedCore
import HostedHTTP
import HostedStorage

extension Problem {
    /// The one place domain errors become HTTP problems.
    init(_ error: DomainError) {
        switch error {
        case .unauthenticated:
            self = .unauthorized("Provide a valid API key as `Authorization: Bearer sk_…`.")
        case .notFound(let what):
            self = .notFound("No such \(what).")
        case .invalidRequest(let detail, let errors, let code):
            self = .invalidRequest(detail, errors: errors.map { FieldIssue(field: $0.field, message: $0.message, code: $0.code) },
                                   code: code.rawValue)
        case .conflict(let detail, let code, let retryAfter):
            self = Problem(status: 409, code: code.rawValue, title: "Conflict", detail: detail,
                           headers: retryAfter.map { [("Retry-After", String($0))] } ?? [])
        case .rateLimited(let detail, let retryAfter):
            self = Problem(status: 429, code: ProblemCode.rateLimited.rawValue, title: "Too Many Requests", detail: detail,
                           headers: [("Retry-After", String(retryAfter))])
        case .gone(let detail, let code):
            self = Problem(status: 410, code: code.rawValue, title: "Gone", detail: detail)
        case .unavailable(let detail, let code, let retryAfter):
            self = Problem(status: 503, code: code.rawValue, title: "Service Unavailable", detail: detail,
                           headers: [("Retry-After", String(retryAfter))])
        }
    }

    /// A problem of the service's own, with its code from the one list (`ProblemCode`).
    init(status: Int, code: ProblemCode, title: String, detail: String, headers: [(String, String)] = []) {
        self.init(status: status, code: code.rawValue, title: title, detail: detail, headers: headers)
    }

    /// The store is unreachable: worth retrying, and not the client's fault.
    static let databaseUnavailable = Problem(DomainError.unavailable(detail: "The database is unreachable. Retry shortly.",
                                                                     code: .databaseUnavailable, retryAfterSeconds: 1))
}
