import Foundation

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

    /// The reply of work that hands its result to a callback, which may run before `start`
    /// returns (then the reply is ready, and the connection is never suspended) or later on
    /// another thread (then it is deferred until the callback runs). The callback runs once.
    public static func eventually(_ start: (@escaping @Sendable (Reply) -> Void) -> Void) -> Reply {
        let outcome = EventualReply()
        start { outcome.settle($0) }
        return outcome.reply
    }

    /// Sends this reply's response to `complete`, now or when it is ready.
    func forward(to complete: @escaping DeferredResponse.Completion) {
        switch self {
        case .ready(let response): complete(response)
        case .deferred(let deferred): deferred.start(complete)
        }
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

/// The meeting point of `Reply.eventually`: the reply and the completion waiting for it, whichever
/// comes first.
///
/// `@unchecked Sendable`: `settled` and `waiting` are guarded by `lock`.
private final class EventualReply: @unchecked Sendable {
    private let lock = NSLock()
    private var settled: Reply?
    private var waiting: DeferredResponse.Completion?

    func settle(_ reply: Reply) {
        lock.lock()
        guard let waiting else {
            settled = reply
            lock.unlock()
            return
        }
        self.waiting = nil
        lock.unlock()
        reply.forward(to: waiting)
    }

    /// The reply as it stands when the responder returns.
    var reply: Reply {
        lock.lock()
        defer { lock.unlock() }
        if let settled { return settled }
        return .later { [self] complete in
            lock.lock()
            guard let settled else {
                waiting = complete
                lock.unlock()
                return
            }
            lock.unlock()
            settled.forward(to: complete)
        }
    }
}
