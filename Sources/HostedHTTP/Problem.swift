import Foundation

/// An RFC 9457 problem: the one shape every error response takes.
public struct Problem: Error, Sendable, Equatable {
    /// One field's problem.
    public struct FieldIssue: Codable, Sendable, Equatable {
        public let field: String
        public let message: String
        /// A stable reason a page can translate; `invalid` when nothing more precise applies.
        public let code: String

        public init(field: String, message: String, code: String = "invalid") {
            self.field = field
            self.message = message
            self.code = code
        }
    }

    public var status: Int
    /// Stable machine-readable code, e.g. `invalid_request`.
    public var code: String
    public var title: String
    public var detail: String
    public var errors: [FieldIssue]
    /// Extra response headers, e.g. `Allow` or `Retry-After`.
    public var headers: [(String, String)]

    public init(status: Int, code: String, title: String, detail: String,
                errors: [FieldIssue] = [], headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    public static func == (lhs: Problem, rhs: Problem) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.detail == rhs.detail && lhs.errors == rhs.errors
    }

    /// The `type` URI: a stable URN per code.
    public var type: String { "urn:hosted:problem:\(code)" }

    /// Most field issues one response lists: a body naming 90,000 unknown fields must not
    /// come back as a 7 MB answer. The detail says how many there were.
    public static let maximumListedErrors = 100

    public var response: Response {
        let listed = Array(errors.prefix(Self.maximumListedErrors))
        let detail = errors.count > listed.count
            ? self.detail + " The first \(listed.count) of \(errors.count) field errors are listed." : self.detail
        let body = Body(type: type, title: title, status: status, detail: detail, code: code,
                        errors: listed.isEmpty ? nil : listed)
        var headers = HTTPHeaders([("Content-Type", "application/problem+json")])
        for (name, value) in self.headers { headers.add(name, value) }
        // Encoding a struct of strings and ints cannot fail; the fallback keeps this total anyway.
        let bytes = (try? JSONCoding.encoder.encode(body)).map(Array.init) ?? Array(#"{"status":500}"#.utf8)
        return Response(status: status, headers: headers, body: bytes)
    }

    private struct Body: Encodable {
        let type: String
        let title: String
        let status: Int
        let detail: String
        let code: String
        let errors: [FieldIssue]?
    }
}

extension Problem {
    public static func notFound(_ detail: String = "No such resource.") -> Problem {
        Problem(status: 404, code: "not_found", title: "Not Found", detail: detail)
    }

    public static func methodNotAllowed(allowed: [String]) -> Problem {
        Problem(status: 405, code: "method_not_allowed", title: "Method Not Allowed",
                detail: "This resource supports \(allowed.joined(separator: ", ")).",
                headers: [("Allow", allowed.joined(separator: ", "))])
    }

    public static func payloadTooLarge(limit: Int) -> Problem {
        Problem(status: 413, code: "payload_too_large", title: "Content Too Large",
                detail: "The request body exceeds the limit of \(limit) bytes for this route.")
    }

    /// The only thing a client learns of an unexpected failure; the cause goes to the log.
    public static let internalError = Problem(
        status: 500, code: "internal_error", title: "Internal Server Error",
        detail: "Something went wrong on our side. The request id identifies it in our logs.")

    public static func unauthorized(_ detail: String) -> Problem {
        Problem(status: 401, code: "unauthorized", title: "Unauthorized", detail: detail,
                headers: [("WWW-Authenticate", "Bearer")])
    }

    public static func invalidRequest(_ detail: String, errors: [FieldIssue] = [], code: String = "invalid_request", status: Int = 422) -> Problem {
        Problem(status: status, code: code, title: status == 400 ? "Bad Request" : "Unprocessable Content",
                detail: detail, errors: errors)
    }
}
