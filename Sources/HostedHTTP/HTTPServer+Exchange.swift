import Dispatch
import Foundation

extension HTTPServer {
    // MARK: - Per-request state

    /// Everything known about one request while libmicrohttpd calls back for it.
    final class Exchange {
        /// Where the request is on its way from headers to answer.
        enum Phase {
            /// Reading the body (or about to).
            case receiving
            /// The body is refused; what arrives is dropped, and `answer` goes out when it ends.
            case discarding(answer: Response)
            /// Waiting for a deferred response; calls for it are ignored until it is ready.
            case waiting
            /// A response is queued.
            case answered
        }

        let request: Request
        let requestID: String
        let started: DispatchTime
        let receivedAt: Date
        var bodyLimit: Int = Router.defaultBodyLimit
        /// The context the header phase left (the caller it authenticated), for the handler.
        var admitted: RequestContext?
        var body: [UInt8] = []
        var phase = Phase.receiving
        /// Bytes of the server's body budget held for this request, returned when it completes.
        var reserved = 0
        /// Whose shares of the budget `reserved` counts against: the client's address, and the
        /// holder the admission named.
        var budgetHolders: [String] = []
        var discarded = 0
        /// Bytes of the body received so far, kept or discarded (for the minimum rate).
        var received = 0
        /// Set (under the server's lock) when deferred work settles: the response to send, or
        /// the reply to go on with on the worker that resumes the connection.
        var readyReply: Reply?
        /// The query string did not decode: answered 400 instead of running the responder.
        var invalidQuery = false
        /// The route pattern the router matched, for metrics.
        let routeNote = RouteNote()

        init(request: Request, requestID: String) {
            self.request = request
            self.requestID = requestID
            self.started = .now()
            self.receivedAt = Date()
        }
    }
}
