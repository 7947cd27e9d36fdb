import CMicroHTTPD
import Foundation
import HostedObservability

// Running the responder, and queuing its answer with libmicrohttpd: the access log line and the
// request's metrics are written here, once per answer.
extension HTTPServer {
    /// Runs the responder; a thrown `Problem` becomes its response, anything else a generic 500.
    func respond(to request: Request, exchange: Exchange) -> Reply {
        let context = exchange.admitted
            ?? RequestContext(requestID: exchange.requestID, receivedAt: exchange.receivedAt, log: log, routeNote: exchange.routeNote)
        do {
            return try responder.respond(to: request, context: context)
        } catch let problem as Problem {
            return .ready(problem.response)
        } catch {
            log.error("unhandled error: \(String(reflecting: error))", requestID: exchange.requestID)
            return .ready(Problem.internalError.response)
        }
    }

    /// Queues `response` on the connection, frees the body's share of the budget, and writes the
    /// access log line and the request's metrics.
    func answer(_ connection: OpaquePointer, _ exchange: Exchange, _ response: Response) -> MHD_Result {
        exchange.phase = .answered
        // The body has been handed to the responder and answered: its budget is free again.
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return MHD_Result.NO }
        defer { MHD_destroy_response(mhdResponse) }
        // withCString lends a native string's own bytes: no C copy per header.
        for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
            _ = name.withCString { name in value.withCString { value in MHD_add_response_header(mhdResponse, name, value) } }
        }
        _ = exchange.requestID.withCString { MHD_add_response_header(mhdResponse, "X-Request-Id", $0) }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1_000_000
        log.access(AccessLogEntry(time: exchange.receivedAt, requestID: exchange.requestID,
                                  method: exchange.request.method, path: exchange.routeNote.loggedPath ?? exchange.request.path,
                                  status: response.status, bytes: response.body.count,
                                  durationMilliseconds: (elapsed * 1000).rounded() / 1000))
        if let metrics {
            // Noted by the router as it dispatched; matched here only for a request refused
            // before it reached the router (malformed framing, an undecodable query).
            let route = exchange.routeNote.pattern
                ?? responder.routePattern(method: exchange.request.method, path: exchange.request.path) ?? "unmatched"
            metrics.request(route: route, method: exchange.request.method, status: response.status, seconds: elapsed / 1000)
        }
        return result
    }
}
