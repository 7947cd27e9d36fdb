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
            self = .invalidRequest(detail, errors: errors.map { FieldIssue(field: $0.field, message: $0.message, code: $0.code) }, code: code)
        case .conflict(let detail, let code):
            self = Problem(status: 409, code: code, title: "Conflict", detail: detail)
        }
    }

    /// The store is unreachable: worth retrying, and not the client's fault.
    static let databaseUnavailable = Problem(
        status: 503, code: "database_unavailable", title: "Service Unavailable",
        detail: "The database is unreachable. Retry shortly.", headers: [("Retry-After", "1")])
}
