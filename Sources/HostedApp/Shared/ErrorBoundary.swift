import HostedCore
import HostedHTTP
import HostedObservability
import HostedStorage

/// Wraps the router: maps domain and storage errors to problems, logs the unexpected ones with
/// the request id, and adds the headers every response carries.
struct ErrorBoundary: HTTPResponder {
    let next: any HTTPResponder
    let log: any ServerLog

    func routePattern(method: String, path: String) -> String? { next.routePattern(method: method, path: path) }

    func respond(to request: Request, context: RequestContext) throws -> Reply {
        let reply: Reply
        do {
            reply = try next.respond(to: request, context: context)
        } catch {
            reply = .ready(Self.problem(for: error, log: log, requestID: context.requestID).response)
        }
        // A response produced later (a long-poll, the DigiLocker callback) gets the same headers
        // when it is ready.
        let path = request.path
        return reply.map { Self.finish($0, path: path) }
    }

    /// The headers every response carries.
    static func finish(_ response: Response, path: String) -> Response {
        var response = response
        if !response.headers.contains("X-Content-Type-Options") { response.headers.add("X-Content-Type-Options", "nosniff") }
        if !response.headers.contains("Cache-Control") { response.headers.add("Cache-Control", "no-store") }
        PageHeaders.apply(to: &response, path: path)
        return response
    }

    /// The body's response, or the problem its error maps to (the unexpected ones logged). Also
    /// for work finished off the worker thread, in a deferred response.
    static func protect(log: any ServerLog, requestID: String?, _ body: () throws -> Response) -> Response {
        do {
            return try body()
        } catch {
            return problem(for: error, log: log, requestID: requestID).response
        }
    }

    /// The problem an error maps to; the unexpected ones are logged, never shown.
    static func problem(for error: any Error, log: any ServerLog, requestID: String?) -> Problem {
        Problem.mapping(error) { log.error($0, requestID: requestID) }
    }

    /// The same, logged with the request's log (for work finished after the responder returned).
    static func problem(for error: any Error, log: RequestLog) -> Problem {
        Problem.mapping(error, report: log.error)
    }

    func bodyLimit(method: String, path: String) -> Int { next.bodyLimit(method: method, path: path) }

    func admit(_ request: Request, context: inout RequestContext) throws -> Int {
        do {
            return try next.admit(request, context: &context)
        } catch {
            throw Self.problem(for: error, log: log, requestID: context.requestID)
        }
    }
}
