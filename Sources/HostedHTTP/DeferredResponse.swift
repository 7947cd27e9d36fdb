import Foundation

/// A response that is not ready yet: a long-poll, a statement in the database pipeline, work that
/// must go back to a worker thread. The server suspends the connection — freeing its worker
/// thread — and starts the work; what the work settles with (once, from any thread) resumes the
/// connection: a response to send, or a reply to go on with.
public final class DeferredResponse: Sendable {
    public typealias Completion = @Sendable (Response) -> Void
    /// What the work settles with: a response (`.ready`), more waiting, or a worker task.
    typealias Settle = @Sendable (Reply) -> Void

    /// Starts the work; it calls `settle` once.
    let begin: @Sendable (@escaping Settle) -> Void
    /// Work that must run on one of the server's worker threads (it may block on the database):
    /// run at once when the reply reaches the server on a worker, else when the connection is
    /// resumed. nil: `begin` runs anywhere.
    let workerTask: (@Sendable () -> Reply)?

    /// Work that calls `complete` with its response, once, from any thread.
    public init(start: @escaping @Sendable (@escaping Completion) -> Void) {
        begin = { settle in start { settle(.ready($0)) } }
        workerTask = nil
    }

    /// Work that settles with a reply, once, from any thread.
    init(settling begin: @escaping @Sendable (@escaping Settle) -> Void) {
        self.begin = begin
        workerTask = nil
    }

    init(onWorker task: @escaping @Sendable () -> Reply) {
        begin = { settle in settle(task()) }
        workerTask = task
    }

    /// Starts the work and calls `complete` with the response it ends with (a worker task runs on
    /// the calling thread).
    public func start(_ complete: @escaping Completion) {
        begin { $0.forward(to: complete) }
    }
}
