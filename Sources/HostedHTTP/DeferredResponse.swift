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

/// What a responder answers: a response now, or one produced later by work that does not hold a
/// worker thread (see `DeferredResponse`). Nothing stands in for the later one: it has no status
/// or headers until it is ready.
public enum Reply: Sendable {
    case ready(Response)
    case deferred(DeferredResponse)

    /// A reply produced later; see `DeferredResponse`.
    public static func later(_ start: @escaping @Sendable (@escaping DeferredResponse.Completion) -> Void) -> Reply {
        .deferred(DeferredResponse(start: start))
    }

    /// The response, if it is ready now.
    public var response: Response? {
        if case .ready(let response) = self { return response }
        return nil
    }

    /// The deferred response, if this is one.
    public var deferred: DeferredResponse? {
        if case .deferred(let deferred) = self { return deferred }
        return nil
    }

    /// This reply with `transform` applied to its response, now or when it is ready.
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> Reply {
        switch self {
        case .ready(let response): return .ready(transform(response))
        case .deferred(let deferred): return .later { complete in deferred.start { complete(transform($0)) } }
        }
    }
}
