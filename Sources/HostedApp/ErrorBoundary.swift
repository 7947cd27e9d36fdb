import HostedCore
import HostedHTTP
import HostedStorage

/// Wraps the router: maps domain and storage errors to problems, logs the unexpected ones with
/// the request id, and adds the headers every response carries.
struct ErrorBoundary: HTTPResponder {
    let next: any HTTPResponder
    let log: any ServerLog

    func respond(to request: Request, context: RequestContext) throws -> Response {
        var response: Response
        do {
            response = try next.respond(to: request, context: context)
        } catch let problem as Problem {
            response = problem.response
        } catch let error as DomainError {
            response = Problem(error).response
        } catch let error as DatabaseError {
            log.error("database: \(error.debugDescription)", requestID: context.requestID)
            switch error {
            case .connectionLost, .cannotConnect, .busy: response = Problem.databaseUnavailable.response
            default: response = Problem.internalError.response
            }
        } catch {
            log.error("unhandled: \(String(reflecting: error))", requestID: context.requestID)
            response = Problem.internalError.response
        }
        if !response.headers.contains("X-Content-Type-Options") { response.headers.add("X-Content-Type-Options", "nosniff") }
        if !response.headers.contains("Cache-Control") { response.headers.add("Cache-Control", "no-store") }
        return response
    }

    func bodyLimit(method: String, path: String) -> Int { next.bodyLimit(method: method, path: path) }
}
