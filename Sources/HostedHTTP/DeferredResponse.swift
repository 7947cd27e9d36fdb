/// A response that is not ready yet (a long-poll). The server suspends the connection — freeing
/// its worker thread — and calls `start` with a completion; whoever calls the completion (once,
/// from any thread) resumes the connection with that response.
public final class DeferredResponse: Sendable {
    public typealias Completion = @Sendable (Response) -> Void
    public let start: @Sendable (@escaping Completion) -> Void

    public init(start: @escaping @Sendable (@escaping Completion) -> Void) {
        self.start = start
    }
}

extension Response {
    /// A response that will be produced later; see `DeferredResponse`.
    public static func deferred(_ start: @escaping @Sendable (@escaping DeferredResponse.Completion) -> Void) -> Response {
        var response = Response(status: 0)
        response.deferred = DeferredResponse(start: start)
        return response
    }
}
