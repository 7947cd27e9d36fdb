/// The request's view of the server log: every line names the request.
public struct RequestLog: Sendable {
    public let requestID: String
    let sink: (any ServerLog)?

    /// `sink` nil: lines go nowhere (a context made without a server, as in tests).
    public init(requestID: String, sink: (any ServerLog)?) {
        self.requestID = requestID
        self.sink = sink
    }

    public func error(_ message: String) {
        sink?.error(message, requestID: requestID)
    }
}
