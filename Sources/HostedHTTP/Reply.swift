import Foundation

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

    /// A reply made by `task` on one of the server's worker threads: at once when this reply
    /// reaches the server there, or on the worker that resumes the connection when work off the
    /// workers (a pipelined statement) settles with it.
    public static func onWorker(_ task: @escaping @Sendable () -> Reply) -> Reply {
        .deferred(DeferredResponse(onWorker: task))
    }

    /// The reply of work that hands its result to a callback, which may run before `start`
    /// returns (then the reply is that result, and the connection is never suspended) or later on
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

    /// This reply with `transform` applied to its response, now or when it is ready; a worker
    /// task stays one.
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> Reply {
        switch self {
        case .ready(let response):
            return .ready(transform(response))
        case .deferred(let deferred):
            if let task = deferred.workerTask { return .onWorker { task().map(transform) } }
            return .deferred(DeferredResponse(settling: { settle in deferred.begin { settle($0.map(transform)) } }))
        }
    }
}

/// The meeting point of `Reply.eventually`: the reply and the work waiting for it, whichever
/// comes first.
///
/// `@unchecked Sendable`: `settled` and `waiting` are guarded by `lock`.
private final class EventualReply: @unchecked Sendable {
    private let lock = NSLock()
    private var settled: Reply?
    private var waiting: DeferredResponse.Settle?

    func settle(_ reply: Reply) {
        lock.lock()
        guard let waiting else {
            settled = reply
            lock.unlock()
            return
        }
        self.waiting = nil
        lock.unlock()
        waiting(reply)
    }

    /// The reply as it stands when the responder returns.
    var reply: Reply {
        lock.lock()
        defer { lock.unlock() }
        if let settled { return settled }
        return .deferred(DeferredResponse(settling: { [self] settle in
            lock.lock()
            guard let settled else {
                waiting = settle
                lock.unlock()
                return
            }
            lock.unlock()
            settle(settled)
        }))
    }
}
