import CMicroHTTPD
import Foundation

// Deferred replies: a connection is suspended while its work runs off the worker threads, and
// resumed (or answered at shutdown) when it settles.
extension HTTPServer {
    /// A suspended connection waiting for its deferred response; completes at most once.
    ///
    /// `@unchecked Sendable`: `done` is only touched while holding `lock`; the exchange's
    /// `readyReply` only under the server's lock; and `MHD_resume_connection` may be called
    /// from any thread.
    final class Suspended: @unchecked Sendable {
        let connection: OpaquePointer
        let exchange: Exchange
        private let lock = NSLock()
        private var done = false

        init(connection: OpaquePointer, exchange: Exchange) {
            self.connection = connection
            self.exchange = exchange
        }

        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if done { return false }
            done = true
            return true
        }
    }

    /// Answers a ready reply, runs a worker task here (this is a worker thread), or suspends the
    /// connection until deferred work settles.
    func dispatch(_ reply: Reply, _ connection: OpaquePointer, _ exchange: Exchange) -> MHD_Result {
        var reply = reply
        while case .deferred(let deferred) = reply, let task = deferred.workerTask { reply = task() }
        switch reply {
        case .ready(let response): return answer(connection, exchange, response)
        case .deferred(let deferred): return suspend(connection, exchange, deferred)
        }
    }

    func takeReadyReply(_ exchange: Exchange) -> Reply? {
        lock.lock()
        defer { lock.unlock() }
        let ready = exchange.readyReply
        exchange.readyReply = nil
        return ready
    }

    /// Suspends the connection (its worker moves on) until the deferred response completes.
    /// Once shutdown has answered the suspended connections, a new deferred response is refused
    /// at once instead.
    private func suspend(_ connection: OpaquePointer, _ exchange: Exchange, _ deferred: DeferredResponse) -> MHD_Result {
        let suspended = Suspended(connection: connection, exchange: exchange)
        // Suspending and registering happen together under the lock, so shutdown either sees
        // this connection (and answers it) or has already refused it.
        lock.lock()
        guard !stopping else {
            lock.unlock()
            return answer(connection, exchange, Self.shuttingDown.response)
        }
        exchange.phase = .waiting
        MHD_suspend_connection(connection)
        suspendedConnections[ObjectIdentifier(suspended)] = suspended
        lock.unlock()
        deferred.begin { [self] reply in resume(suspended, with: reply) }
        return MHD_Result.YES
    }

    /// Resumes a suspended connection with `reply` (sent, or gone on with, on its worker thread),
    /// unless it was answered already.
    private func resume(_ suspended: Suspended, with reply: Reply) {
        guard suspended.claim() else { return }
        lock.lock()
        suspendedConnections[ObjectIdentifier(suspended)] = nil
        suspended.exchange.readyReply = reply
        resumesInProgress += 1
        lock.unlock()
        MHD_resume_connection(suspended.connection)
        lock.lock()
        resumesInProgress -= 1
        lock.unlock()
    }

    /// Answers every connection still waiting for a deferred response, and refuses to suspend
    /// any more; true if there were any.
    func answerSuspendedAndStopSuspending() -> Bool {
        lock.lock()
        stopping = true
        let waiting = Array(suspendedConnections.values)
        lock.unlock()
        let reply = Reply.ready(Self.shuttingDown.response)
        for suspended in waiting { resume(suspended, with: reply) }
        return !waiting.isEmpty
    }
}
